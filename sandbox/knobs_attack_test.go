package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// knobProbes try to change the host from inside the sandbox through interfaces that check only
// the caller's uid (root's, outside the user namespace, when exo runs as root): each writes back
// the value already there (so a probe that gets through changes nothing), or only opens a device
// or the sysrq trigger for writing without writing. Each prints OPENED when it got through.
func knobProbes() []string {
	var out []string
	if b, err := os.ReadFile("/proc/sys/vm/swappiness"); err == nil {
		out = append(out, fmt.Sprintf(`echo %s > /proc/sys/vm/swappiness && echo OPENED`, strings.TrimSpace(string(b))))
	}
	if b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err == nil {
		if _, cur, ok := strings.Cut(string(b), "["); ok {
			cur, _, _ = strings.Cut(cur, "]")
			out = append(out, fmt.Sprintf(`echo %s > /sys/kernel/mm/transparent_hugepage/enabled && echo OPENED`, cur))
		}
	}
	for _, p := range []string{"/proc/sysrq-trigger", "/dev/kmsg", "/dev/kvm", "/dev/loop-control", "/dev/fuse"} {
		if _, err := os.Stat(p); err == nil {
			out = append(out, fmt.Sprintf(`exec 3>>%s && echo OPENED`, p))
		}
	}
	return out
}

// TestHostKnobsUnreachable: with exo as root, a sandboxed command (Landlock and mount-namespace
// write confinement, root seen as root or as NestedID inside) cannot write sysctls, /sys, the sysrq
// trigger or open device nodes beyond the usual ones, while /dev/null, /dev/zero and
// /dev/urandom still work. The same probes outside the sandbox get through (the control).
func TestHostKnobsUnreachable(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the probes matter when exo runs as root (a non-root sandbox cannot write these anyway)")
	}
	if !testCaps().MountNS {
		t.Skip("no mount namespaces here")
	}
	probes := knobProbes()
	if len(probes) < 3 {
		t.Fatalf("only %d probes apply here", len(probes))
	}
	live := 0
	for _, p := range probes { // the control: exo itself, as root, gets through
		if out, _ := exec.Command("bash", "-c", p).CombinedOutput(); strings.Contains(string(out), "OPENED") {
			live++
		} else {
			t.Logf("control: %q does not get through outside the sandbox either: %s", p, out)
		}
	}
	if live < 2 {
		t.Fatalf("only %d of the probes get through outside the sandbox: they test nothing", live)
	}
	for _, mode := range []FSMode{FSLandlock, FSMountNS} {
		for _, nested := range []bool{false, true} {
			if mode == FSLandlock && testCaps().LandlockABI == 0 {
				continue
			}
			t.Run(fmt.Sprintf("%s/nested=%v", mode, nested), func(t *testing.T) {
				cfg := testConfig(t)
				cfg.Filesystem, cfg.NestedUserNS = mode, nested
				sh := newTestShell(t, cfg)
				for _, p := range probes {
					if r := run(t, sh, p, RunOptions{}); strings.Contains(r.Output, "OPENED") {
						t.Errorf("%q got through: %q", p, r.Output)
					}
				}
				r := run(t, sh, `echo x > /dev/null && head -c 3 /dev/zero | wc -c && head -c 5 /dev/urandom | wc -c`, RunOptions{})
				if strings.Fields(r.Output)[0] != "3" || !strings.Contains(r.Output, "5") {
					t.Errorf("usual devices: %q", r.Output)
				}
			})
		}
	}
}

// TestNestedUserNamespace: with NestedUserNS (and mount-namespace write confinement, Landlock
// forbidding mounts), a program inside can make its own user namespace mapping its uid, as
// Codex's bubblewrap does; root is seen as NestedID; files it writes in the workspace are exo's
// user's; writes outside stay refused. Without NestedUserNS the kernel refuses root that map.
func TestNestedUserNamespace(t *testing.T) {
	if os.Geteuid() != 0 || !testCaps().MountNS {
		t.Skip("needs root and mount namespaces")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare(1)")
	}
	cfg := testConfig(t)
	cfg.Filesystem, cfg.NestedUserNS = FSMountNS, true
	sh := newTestShell(t, cfg)
	r := run(t, sh, `id -u; unshare -U -r sh -c 'echo inner=$(id -u)'; echo w > w.txt; echo o > /var/tmp/exo-nested-escape.txt 2>&1 || echo REFUSED`, RunOptions{})
	if !strings.HasPrefix(r.Output, fmt.Sprint(NestedID)) || !strings.Contains(r.Output, "inner=0") || !strings.Contains(r.Output, "REFUSED") {
		t.Fatalf("nested user namespace: %q", r.Output)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(filepath.Join(cfg.Workspace, "w.txt"), &st); err != nil || st.Uid != 0 {
		t.Fatalf("w.txt is not root's: uid %d, %v", st.Uid, err)
	}
	plain := testConfig(t)
	plain.Filesystem = FSMountNS
	r = run(t, newTestShell(t, plain), `unshare -U -r true && echo MAPPED || echo REFUSED`, RunOptions{})
	if !strings.Contains(r.Output, "REFUSED") {
		t.Fatalf("without NestedUserNS root mapped itself in a nested namespace: %q (the control no longer holds: drop NestedUserNS?)", r.Output)
	}
}
