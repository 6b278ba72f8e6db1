package sandbox

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// loopbackListener opens a TCP listener on 127.0.0.1 that accepts and closes connections.
func loopbackListener(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

// connectCmd is a shell command that connects to the port with bash's /dev/tcp.
func connectCmd(port int) string {
	return fmt.Sprintf(`bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d' && echo CONNECTED || echo REFUSED`, port)
}

func TestNetworkDeniedByDefault(t *testing.T) {
	if !testCaps().NetNS {
		t.Skip("no user+network namespaces on this host")
	}
	port := loopbackListener(t)
	sh := newTestShell(t, testConfig(t))
	if !sh.Enforcement().NetworkIsolated {
		t.Fatalf("enforcement: %s", sh.Enforcement())
	}
	r := run(t, sh, connectCmd(port), RunOptions{})
	if !strings.Contains(r.Output, "REFUSED") {
		t.Fatalf("network not denied: %q", r.Output)
	}
}

func TestNetworkAllowedWhenOn(t *testing.T) {
	port := loopbackListener(t)
	cfg := testConfig(t)
	cfg.Network = true
	sh := newTestShell(t, cfg)
	r := run(t, sh, connectCmd(port), RunOptions{})
	if !strings.Contains(r.Output, "CONNECTED") {
		t.Fatalf("network denied: %q", r.Output)
	}
}

// fsModes returns the write-confinement modes this host can test.
func fsModes(t *testing.T) []FSMode {
	var modes []FSMode
	if testCaps().LandlockABI > 0 {
		modes = append(modes, FSLandlock)
	}
	if testCaps().MountNS {
		modes = append(modes, FSMountNS)
	}
	if len(modes) == 0 {
		t.Skip("neither landlock nor mount namespaces on this host")
	}
	return modes
}

// denied is the error each mode gives for a write outside the workspace.
var denied = map[FSMode]string{FSLandlock: "Permission denied", FSMountNS: "Read-only file system"}

// outsideDir makes a directory outside /tmp (which the sandbox replaces with its own).
func outsideDir(t *testing.T) string {
	dir, err := os.MkdirTemp("/var/tmp", "exo-outside-")
	if err != nil {
		t.Skipf("no writable dir outside /tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func TestWriteOutsideWorkspaceRefused(t *testing.T) {
	for _, mode := range fsModes(t) {
		t.Run(string(mode), func(t *testing.T) {
			outside := outsideDir(t)
			cfg := testConfig(t)
			cfg.Filesystem, cfg.Fallback = mode, Refuse
			sh := newTestShell(t, cfg)
			if sh.Enforcement().Filesystem != mode {
				t.Fatalf("enforcement: %s", sh.Enforcement())
			}
			target := filepath.Join(outside, "escape.txt")
			r := run(t, sh, fmt.Sprintf(`echo no > %s; echo yes > inside.txt && echo tmp > "$TMPDIR/t" && echo tmp2 > /tmp/t2 && cat /etc/hostname >/dev/null && echo >/dev/null && echo WROTE`, target), RunOptions{})
			if _, err := os.Stat(target); err == nil {
				t.Fatalf("write outside the workspace succeeded: %q", r.Output)
			}
			if !strings.Contains(r.Output, "WROTE") || !strings.Contains(r.Output, denied[mode]) {
				t.Fatalf("allowed writes failed: %q", r.Output)
			}
			if b, _ := os.ReadFile(filepath.Join(cfg.Workspace, "inside.txt")); string(b) != "yes\n" {
				t.Fatalf("workspace write missing: %q", b)
			}
		})
	}
}

func TestRlimitsApplied(t *testing.T) {
	cfg := testConfig(t)
	cfg.Limits = Limits{AddressSpace: 1 << 30, FileSize: 1 << 20, Processes: 500, CPUSeconds: 77}
	sh := newTestShell(t, cfg)
	r := run(t, sh, "grep -E 'Max (cpu time|file size|processes|address space)' /proc/self/limits", RunOptions{})
	for _, want := range []string{`cpu time\s+77\s+77 `, `file size\s+1048576\s+1048576 `, `processes\s+500\s+500 `, `address space\s+1073741824\s+1073741824 `} {
		if !regexp.MustCompile(want).MatchString(r.Output) {
			t.Fatalf("limits: want %s in\n%s", want, r.Output)
		}
	}
	r = run(t, sh, "head -c 2M /dev/zero > big; echo $?; stat -c %s big", RunOptions{})
	if !strings.HasSuffix(r.Output, "1048576\n") || strings.HasPrefix(r.Output, "0\n") {
		t.Fatalf("file size limit not enforced: %q", r.Output)
	}
}

func TestRefusePolicyWithoutIsolation(t *testing.T) {
	cfg := testConfig(t)
	cfg.Fallback = Refuse
	_, err := NewShell(cfg, Capabilities{PTY: true, Rlimits: true})
	if err == nil || !strings.Contains(err.Error(), "network isolation") {
		t.Fatalf("want refusal, got %v", err)
	}
	cfg.Fallback = RunUnconfined
	sh2, err := NewShell(cfg, Capabilities{PTY: true, Rlimits: true})
	if err != nil || sh2.Enforcement().Confined() || !strings.Contains(sh2.Enforcement().String(), "NOT ISOLATED") {
		t.Fatalf("unconfined run not reported: %v %s", err, sh2.Enforcement())
	}
}

func TestNoCapabilitiesInside(t *testing.T) {
	for _, mode := range fsModes(t) {
		t.Run(string(mode), func(t *testing.T) {
			cfg := testConfig(t)
			cfg.Filesystem = mode
			sh := newTestShell(t, cfg)
			r := run(t, sh, "grep -E '^Cap(Eff|Prm)' /proc/self/status; mount -o remount,bind,rw / 2>/dev/null && echo REMOUNTED; umount /tmp 2>/dev/null && echo UNMOUNTED; true", RunOptions{})
			if strings.Count(r.Output, "0000000000000000") != 2 || strings.Contains(r.Output, "MOUNTED") {
				t.Fatalf("capabilities left inside the sandbox:\n%s", r.Output)
			}
		})
	}
}

func TestLandlockBlocksTCPWithoutNetNS(t *testing.T) {
	if testCaps().LandlockABI < landlockNetABI {
		t.Skip("landlock on this host cannot block TCP")
	}
	port := loopbackListener(t)
	caps := testCaps()
	caps.NetNS = false // as on hosts that forbid unprivileged user namespaces
	sh, err := NewShell(testConfig(t), caps)
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	e := sh.Enforcement()
	if !e.TCPBlocked || e.NetworkIsolated || e.Confined() || !strings.Contains(e.String(), "TCP blocked") {
		t.Fatalf("enforcement: %s", e)
	}
	if r := run(t, sh, connectCmd(port), RunOptions{}); !strings.Contains(r.Output, "REFUSED") {
		t.Fatalf("TCP not blocked: %q", r.Output)
	}
}

func TestProcessesIsolated(t *testing.T) {
	if !testCaps().PidNS {
		t.Skip("no PID namespaces on this host")
	}
	sh := newTestShell(t, testConfig(t))
	r := run(t, sh, fmt.Sprintf("echo $$; ls -d /proc/[0-9]* | wc -l; test -e /proc/%d/environ && echo EXO-VISIBLE; true", os.Getpid()), RunOptions{})
	lines := strings.Fields(r.Output)
	if len(lines) != 2 || lines[0] != "1" || lines[1] == "" || strings.Contains(r.Output, "EXO-VISIBLE") {
		t.Fatalf("process isolation: %q", r.Output)
	}
	if n, _ := strconv.Atoi(lines[1]); n > 5 {
		t.Fatalf("%d processes visible in the sandbox", n)
	}
}

// TestMaskedSocketUnreachable: a path named in MaskPaths is hidden even inside the workspace
// (masks are mounted after the workspace's bind), and a missing one is ignored.
func TestMaskedSocketUnreachable(t *testing.T) {
	if !testCaps().MountNS {
		t.Skip("no mount namespaces on this host")
	}
	for _, masked := range []bool{false, true} {
		cfg := testConfig(t)
		sock := filepath.Join(cfg.Workspace, "engine.sock")
		listenUnix(t, sock)
		if masked {
			cfg.MaskPaths = []string{sock, filepath.Join(cfg.Workspace, "missing")}
		}
		probe := copyProbe(t, cfg.Workspace)
		sh := newTestShell(t, cfg)
		want := map[bool]string{false: "CONNECTED", true: "refused"}[masked]
		if r := run(t, sh, quote(probe)+" "+probeCommand+" connect "+sock, RunOptions{}); !strings.Contains(r.Output, want) {
			t.Fatalf("masked=%v: %q, want %s", masked, r.Output, want)
		}
	}
}
