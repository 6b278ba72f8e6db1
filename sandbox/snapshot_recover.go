package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// staleWait is how long RecoverShadow waits for a live git process (left running by an exo
// that was killed) to finish and drop its locks before reporting it.
const staleWait = 5 * time.Second

// RecoverShadow makes a shadow repository usable after exo (and maybe git) was killed in the
// middle of a snapshot or restore: lock files and half-written temporary objects left behind
// are removed, but only once no live process is working on the repository (a git that outlived
// its exo is waited for). It reports an error naming the process that still holds it.
func RecoverShadow(gitDir string) error {
	left := leftovers(gitDir)
	if len(left) == 0 {
		return nil
	}
	deadline := time.Now().Add(staleWait)
	for {
		pids := gitProcesses(gitDir)
		if len(pids) == 0 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("shadow repository %s is in use by process %d (a git left running); wait for it or stop it", gitDir, pids[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, p := range leftovers(gitDir) {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("remove stale %s: %w", p, err)
		}
	}
	return nil
}

// leftovers lists lock files and temporary object files in a repository.
func leftovers(gitDir string) []string {
	var out []string
	for _, pat := range []string{"*.lock", "refs/*.lock", "refs/*/*.lock", "refs/*/*/*.lock", "objects/info/*.lock",
		"objects/??/tmp_obj_*", "objects/pack/tmp_*", "objects/tmp_objdir-*"} {
		m, _ := filepath.Glob(filepath.Join(gitDir, pat))
		out = append(out, m...)
	}
	return out
}

// gitProcesses returns the live processes working on gitDir: those whose environment sets
// GIT_DIR to it (every git exo runs on a shadow repository does, and its children inherit it).
func gitProcesses(gitDir string) []int {
	want := []byte("GIT_DIR=" + gitDir + "\x00")
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append([]byte{0}, env...), append([]byte{0}, want...)) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && zombie(st) {
			continue
		}
		out = append(out, pid)
	}
	return out
}

// zombie reports whether a /proc/PID/stat line is a zombie's (it holds no files).
func zombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && strings.HasPrefix(string(stat[i+1:]), " Z")
}
