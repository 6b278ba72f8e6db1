// Package attacktest holds what the tests of exo's external executors use to attack exo's home
// from an agent's own commands: an EXO_HOME outside /tmp, shell commands that try to read its
// sealed-secrets key and database without naming it literally (so exo's command-text check does
// not stop them: only confinement can), and the byte patterns whose presence anywhere means a
// probe got through.
package attacktest

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/extexec/modeltest"
)

// Home makes an empty EXO_HOME under /var/tmp (a sandbox replaces /tmp with its own, which would
// hide a home there for a reason that proves nothing), removed when the test ends.
func Home(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "exoatk-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// Probe is one attack: a name and the shell command.
type Probe struct {
	Name, Command string
}

// Probes are the commands that try to read home's key file and database, each dumping what it
// reads with od (hex the redactor does not catch): by a glob, through /proc/self/root, through a
// symlink planted in the current folder, and by a relative path. None holds home's path as text.
func Probes(home string) []Probe {
	files := func(dir string) string {
		return dir + "/secret.key " + dir + "/exo.db | head -4"
	}
	glob := home[:len(home)-1] + "?"
	doubled := "/" + strings.Replace(strings.TrimPrefix(home, "/"), "/", "//", 1)
	return []Probe{
		{"glob", "od -An -tx1 " + files(glob)},
		{"proc-self-root", "od -An -tx1 " + files("/proc/self/root"+doubled)},
		{"planted-symlink", "ln -sfn " + doubled + " homelink && od -An -tx1 " + files("homelink")},
		{"relative", "cd " + filepath.Dir(home) + " && od -An -tx1 " + files(filepath.Base(home))},
	}
}

// Leaks are the patterns that show a probe read home's files: each 8-byte run of the key as od
// prints it and as plain hex, and the database's bbolt magic as od prints it. It fails when the
// key is missing (there would be nothing to look for).
func Leaks(t testing.TB, home string) [][]byte {
	t.Helper()
	key, err := os.ReadFile(filepath.Join(home, "secret.key"))
	if err != nil || len(key) < 16 {
		t.Fatalf("exo's key file: %v (%d bytes)", err, len(key))
	}
	out := [][]byte{[]byte("ed da 0c ed"), []byte(hex.EncodeToString(key))}
	for i := 0; i+8 <= len(key); i += 8 {
		var pairs []string
		for _, b := range key[i : i+8] {
			pairs = append(pairs, hex.EncodeToString([]byte{b}))
		}
		out = append(out, []byte(strings.Join(pairs, " ")))
	}
	return out
}

// Control runs each probe with bash in dir, unconfined, and fails unless it shows a leak: the
// probes are live, so their failing inside a sandbox means something.
func Control(t testing.TB, home, dir string) {
	t.Helper()
	leaks := Leaks(t, home)
	for _, p := range Probes(home) {
		cmd := exec.Command("bash", "-c", p.Command)
		cmd.Dir = dir
		out, _ := cmd.CombinedOutput()
		if Find(out, leaks) == nil {
			t.Fatalf("control: probe %s does not read exo's home even unconfined: %s", p.Name, out)
		}
	}
}

// Find returns the first of leaks in b, or nil.
func Find(b []byte, leaks [][]byte) []byte {
	for _, l := range leaks {
		if bytes.Contains(b, l) {
			return l
		}
	}
	return nil
}

// NoLeak fails when b holds a leak.
func NoLeak(t testing.TB, where string, b []byte, leaks [][]byte) {
	t.Helper()
	if l := Find(b, leaks); l != nil {
		t.Errorf("%s holds %q: exo's home was read", where, l)
	}
}

// NoLeakUnder searches every regular file under dir but home's key file and database themselves,
// and returns how many it searched.
func NoLeakUnder(t testing.TB, dir, home string, leaks [][]byte) int {
	t.Helper()
	n := 0
	skip := map[string]bool{filepath.Join(home, "secret.key"): true, filepath.Join(home, "exo.db"): true}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || skip[p] {
			return nil
		}
		b, err := os.ReadFile(p)
		if err == nil {
			n++
			NoLeak(t, p, b, leaks)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Script is a model script that, for a prompt holding "probe exo's home", calls tool once per
// probe (its command in the input field arg, plus extra fields), then answers "Probed."; any other
// prompt (an agent's side requests, such as a title) is answered "A title".
func Script(tool, arg string, extra map[string]any, probes []Probe) *modeltest.Script {
	var turns []modeltest.Turn
	for _, p := range probes {
		in := map[string]any{arg: p.Command}
		for k, v := range extra {
			in[k] = v
		}
		turns = append(turns, modeltest.Turn{ToolCalls: []modeltest.Call{{Name: tool, Input: in}}})
	}
	turns = append(turns, modeltest.Turn{Text: "Probed."})
	return &modeltest.Script{Prompts: []modeltest.Prompt{
		{When: "probe exo's home", Turns: turns},
		{When: "Write the title", Turns: []modeltest.Turn{{Text: "A title"}}},
		{Turns: []modeltest.Turn{{Text: "A title"}}},
	}}
}

// Check fails unless n calls of tool ("": of any tool, for an agent that records its commands by
// their titles) ran (recorded and not refused by exo: only confinement
// stopped them) and each found nothing where exo's home is; and when the key's or the database's
// bytes are in the answer, an event, a request body the model server received, or any file in
// home (the agent's state folder, artifacts, logs).
func Check(t testing.TB, home, answer string, evs []harness.Event, bodies [][]byte, n int, tool string) {
	t.Helper()
	for i, o := range Outputs(t, home, answer, evs, bodies, n, tool) {
		if !strings.Contains(o, "No such file") || strings.Contains(o, "denied: secret") {
			t.Errorf("probe %d did not run or found something: %q", i, o)
		}
	}
}

// Outputs is Check without looking at the calls' outputs, which it returns (for an agent whose
// tool.completed does not carry its command's output, whose caller looks elsewhere); n < 0
// leaves their number unchecked too.
func Outputs(t testing.TB, home, answer string, evs []harness.Event, bodies [][]byte, n int, tool string) []string {
	t.Helper()
	leaks := Leaks(t, home)
	NoLeak(t, "the answer", []byte(answer), leaks)
	for _, e := range evs {
		NoLeak(t, fmt.Sprintf("event %d (%s)", e.Seq, e.Type), e.Data, leaks)
	}
	for i, b := range bodies {
		NoLeak(t, fmt.Sprintf("request %d's body", i), b, leaks)
	}
	if got := NoLeakUnder(t, home, home, leaks); got < 5 {
		t.Errorf("searched only %d files in EXO_HOME", got)
	}
	var outs []string
	for _, e := range evs {
		if e.Type != harness.TypeToolCompleted {
			continue
		}
		if p, err := harness.Decode(e); err == nil && (tool == "" || p.(*harness.ToolCompleted).Tool == tool) {
			outs = append(outs, p.(*harness.ToolCompleted).Output)
		}
	}
	if n >= 0 && len(outs) != n {
		t.Fatalf("%d %s results, want %d", len(outs), tool, n)
	}
	return outs
}
