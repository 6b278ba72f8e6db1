package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestProbeReportsHost(t *testing.T) {
	c := testCaps()
	if !c.PTY || !c.Rlimits || !strings.HasPrefix(c.Git, "git version") {
		t.Fatalf("probe: %+v", c)
	}
	if c.LandlockABI != landlockABI() {
		t.Fatalf("landlock ABI %d vs %d", c.LandlockABI, landlockABI())
	}
	for _, line := range []string{"pty: yes", "landlock:", "network namespaces:", "git: git version"} {
		if !strings.Contains(c.String(), line) {
			t.Fatalf("report lacks %q:\n%s", line, c)
		}
	}
	t.Logf("this host:\n%s", c)
}

func TestHelperRefusesBadInvocations(t *testing.T) {
	for _, args := range [][]string{{}, {"--workspace", "/x"}, {"--workspace", "/x", "--tmp", "/y"}, {"--bogus"},
		{"--workspace", "/nonexistent", "--tmp", "/nonexistent", "--fs", "landlock", "--landlock-abi", "1", "--", "true"}} {
		cmd := exec.Command(os.Args[0], append([]string{HelperCommand}, args...)...)
		out, err := cmd.CombinedOutput()
		if cmd.ProcessState.ExitCode() != 126 || !strings.HasPrefix(string(out), "exo sandbox: ") {
			t.Errorf("%v: %v %q, want exit 126 with a message", args, err, out)
		}
	}
}
