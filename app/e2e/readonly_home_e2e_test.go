package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadOnlyHomeCanBeReadAndVerified mounts an EXO_HOME read-only (a private mount namespace,
// as a backup disk or a forensic copy would be) and runs the real exo on it: verify, sessions,
// log and doctor work (the daemon logs beside its socket), every change is refused saying the
// home is read-only, and the database is left as it was. A read-only home used to block even
// exo verify and exo log ("open the daemon log: read-only file system").
func TestReadOnlyHomeCanBeReadAndVerified(t *testing.T) {
	t.Parallel()
	unshare := []string{"unshare", "-m"}
	if os.Getuid() != 0 {
		unshare = []string{"unshare", "-rm"}
	}
	if out, err := exec.Command(unshare[0], append(unshare[1:], "sh", "-c", "mount -t tmpfs none /mnt")...).CombinedOutput(); err != nil {
		t.Skipf("this machine cannot make a private mount namespace (%v: %s); a read-only mount needs one", err, bytes.TrimSpace(out))
	}
	home, ws := t.TempDir(), t.TempDir()
	mustRunIn(t, home, ws, "model", "register", "demo", "--provider", "scripted")
	mustRunIn(t, home, ws, "new", "--name", "kept")
	mustRunIn(t, home, ws, "say", "kept", "remember this")
	mustRunIn(t, home, ws, "daemon", "stop")
	before, err := os.ReadFile(filepath.Join(home, "exo.db"))
	if err != nil {
		t.Fatal(err)
	}
	script := `set -u
mount --bind -o ro "$EXO_HOME" "$EXO_HOME" || exit 97
run() { echo "== $*"; "$EXO" "$@" 2>&1; echo "== rc=$?"; }
run verify
run sessions
run log kept
run doctor
run new --name another
run say kept "more"
"$EXO" daemon stop >/dev/null 2>&1
`
	cmd := exec.Command(unshare[0], append(unshare[1:], "sh", "-c", script)...)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "EXO_HOME="+home, "EXO="+exoBin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the read-only run: %v\n%s", err, out)
	}
	parts := map[string]string{}
	for _, p := range strings.Split(string(out), "== ")[1:] {
		name, body, _ := strings.Cut(p, "\n")
		if strings.HasPrefix(name, "rc=") {
			continue
		}
		parts[name] = body
	}
	rc := func(name string) string {
		_, after, _ := strings.Cut(string(out), "== "+name+"\n")
		_, code, _ := strings.Cut(after, "== rc=")
		code, _, _ = strings.Cut(code, "\n")
		return code
	}
	for _, c := range []struct{ cmd, want string }{
		{"verify", "ok: "}, {"sessions", "kept"}, {"log kept", "remember this"}, {"doctor", "read-only"},
	} {
		if rc(c.cmd) != "0" || !strings.Contains(parts[c.cmd], c.want) {
			t.Errorf("exo %s on a read-only home: exit %s, want %q:\n%s", c.cmd, rc(c.cmd), c.want, parts[c.cmd])
		}
	}
	for _, c := range []string{"new --name another", `say kept more`} {
		if rc(c) == "0" || !strings.Contains(parts[c], "read-only") {
			t.Errorf("exo %s on a read-only home: exit %s, want it refused as read-only:\n%s", c, rc(c), parts[c])
		}
	}
	after, _ := os.ReadFile(filepath.Join(home, "exo.db"))
	if !bytes.Equal(before, after) {
		t.Error("the read-only run changed exo.db")
	}
}
