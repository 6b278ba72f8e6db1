package api

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLeaf keeps the protocol a leaf: exo/harness/api depends on the standard library only,
// and not on net/http (clients and servers bring their transport themselves).
func TestLeaf(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH: cannot list the dependencies of exo/harness/api")
	}
	out, err := exec.Command(goBin, "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", "exo/harness/api").Output()
	if err != nil {
		t.Fatalf("go list -deps exo/harness/api: %v", err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, std, _ := strings.Cut(line, " ")
		n++
		switch {
		case path == "exo/harness/api":
		case std != "true":
			t.Errorf("exo/harness/api depends on %s, which is not in the standard library", path)
		case path == "net/http" || strings.HasPrefix(path, "net/http/"):
			t.Errorf("exo/harness/api depends on %s", path)
		}
	}
	t.Logf("exo/harness/api has %d dependencies (itself included)", n)
}
