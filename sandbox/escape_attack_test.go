package sandbox

import (
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// setidShellTries are shell ways to make a set-id program in the workspace.
var setidShellTries = []string{
	"cp /bin/true sh-chmod && chmod u+s sh-chmod",
	"cp /bin/true sh-chmod-octal && chmod 6755 sh-chmod-octal",
	"install -m 4755 /bin/true sh-install",
	"f=$(find /usr/bin /bin -perm -4000 -type f 2>/dev/null | head -1); [ -n \"$f\" ] && cp --preserve=mode \"$f\" sh-cp-preserve",
	"command -v perl >/dev/null && perl -e 'open(F, \">\", \"sh-perl\"); chmod 04755, \"sh-perl\"'",
	"command -v python3 >/dev/null && python3 -c 'import os; open(\"sh-py\",\"w\"); os.chmod(\"sh-py\", 0o4755)'",
}

// TestSetidFilesRefused: from inside the sandbox, every way to make a set-user-id or
// set-group-id program in the workspace (syscalls old and new, O_TMPFILE, io_uring, and the
// shell tools) fails, so no program made by the agent can later run with privilege from the
// host; and the workspace is mounted nosuid inside.
func TestSetidFilesRefused(t *testing.T) {
	if !testCaps().Seccomp {
		t.Skip("no seccomp filter on this host (Enforcement says so)")
	}
	for _, mode := range fsModes(t) {
		t.Run(string(mode), func(t *testing.T) {
			cfg := testConfig(t)
			cfg.Filesystem = mode
			probe := copyProbe(t, cfg.Workspace)
			sh := newTestShell(t, cfg)
			if !sh.Enforcement().NoSetid {
				t.Fatalf("enforcement: %s", sh.Enforcement())
			}
			r := run(t, sh, quote(probe)+" "+probeCommand+" setid .", RunOptions{})
			if strings.Contains(r.Output, "made=true") || strings.Count(r.Output, "made=false") != len(setidTries()) {
				t.Fatalf("set-id probes:\n%s", r.Output)
			}
			for _, c := range setidShellTries {
				run(t, sh, "("+c+") 2>/dev/null; true", RunOptions{})
			}
			filepath.WalkDir(cfg.Workspace, func(p string, d fs.DirEntry, err error) error {
				if fi, err := os.Lstat(p); err == nil && fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid) != 0 && !fi.IsDir() {
					t.Errorf("a set-id file was made in the workspace: %s %v", p, fi.Mode())
				}
				return nil
			})
			r = run(t, sh, `awk -v ws="$PWD" '$5 == ws { print $6 }' /proc/self/mountinfo`, RunOptions{})
			if !strings.Contains(r.Output, "nosuid") {
				t.Fatalf("the workspace is not mounted nosuid inside: %q", r.Output)
			}
			t.Logf("set-id files: %d ways tried, none made one", len(setidTries())+len(setidShellTries))
		})
	}
}

// TestProcessCapBindsRoot: with a cap of 40 processes, a sandbox run by root cannot start 100
// (RLIMIT_NPROC alone does not bind root; the pids cgroup does), and neither moving itself out
// of its cgroup nor raising its pids.max works.
func TestProcessCapBindsRoot(t *testing.T) {
	if testCaps().PidsCgroup == "" {
		t.Skip("no writable pids cgroup on this host (Enforcement says so)")
	}
	for _, mode := range fsModes(t) {
		t.Run(string(mode), func(t *testing.T) {
			cfg := testConfig(t)
			cfg.Filesystem, cfg.Limits.Processes = mode, 40
			probe := copyProbe(t, cfg.Workspace)
			sh := newTestShell(t, cfg)
			escape := `cg=$(awk -F: '$2 ~ /(^|,)pids(,|$)/ || $1 == "0" {print $3; exit}' /proc/self/cgroup); ` +
				`for d in /sys/fs/cgroup/pids /sys/fs/cgroup /sys/fs/cgroup/unified; do echo $$ > $d/cgroup.procs; echo max > $d$cg/pids.max; done 2>/dev/null; ` +
				`grep -h . /proc/self/cgroup | grep -c exo-sandbox-`
			if r := run(t, sh, escape, RunOptions{}); strings.TrimSpace(r.Output) == "0" {
				t.Fatalf("the sandbox left its pids cgroup: %q", r.Output)
			}
			r := run(t, sh, quote(probe)+" "+probeCommand+" fork 100", RunOptions{Timeout: time.Minute})
			var n int
			if _, err := fmt.Sscanf(strings.TrimSpace(r.Output[strings.Index(r.Output, "started="):]), "started=%d", &n); err != nil || n >= 40 {
				t.Fatalf("the cap of 40 processes did not hold: %q", r.Output)
			}
			t.Logf("%s: 100 processes asked, %d started under a cap of 40", mode, n)
		})
	}
}

// listenUnix serves a unix socket at addr (a leading @ is abstract) until the test ends.
func listenUnix(t *testing.T, addr string) {
	t.Helper()
	real := addr
	if addr[0] == '@' {
		real = "\x00" + addr[1:]
	} else if err := os.MkdirAll(filepath.Dir(addr), 0o755); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", real)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for c, err := ln.Accept(); err == nil; c, err = ln.Accept() {
			c.Close()
		}
	}()
}

// TestUnixSocketsOutsideUnreachable serves unix sockets where a way out would be: in /run, in
// the user's runtime dir and exo's daemon dirs ($XDG_RUNTIME_DIR/exo, $TMPDIR/exo-UID), in a
// folder outside /tmp, in a gpg-agent-like home folder, and an abstract one. With the network
// off and on, in every confinement mode, the sandbox reaches none of them, while a socket in
// the workspace still works.
func TestUnixSocketsOutsideUnreachable(t *testing.T) {
	if !testCaps().MountNS {
		t.Skip("no mount namespaces on this host (Enforcement says so)")
	}
	run1 := newNonce()[:8]
	runDir := filepath.Join("/run", "exo-test-"+run1)
	t.Cleanup(func() { os.RemoveAll(runDir) })
	xdg, tmpd, other := outsideDir(t), outsideDir(t), outsideDir(t)
	outside := []string{
		filepath.Join(runDir, "engine.sock"),
		filepath.Join(xdg, "exo", "daemon.sock"),
		filepath.Join(tmpd, fmt.Sprintf("exo-%d", os.Getuid()), "daemon.sock"),
		filepath.Join(other, "service.sock"),
		filepath.Join(other, ".gnupg", "S.gpg-agent"),
		"@exo-test-" + run1,
	}
	for _, a := range outside {
		listenUnix(t, a)
	}
	tried, held := 0, 0
	for _, mode := range fsModes(t) {
		for _, network := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/network=%v", mode, network), func(t *testing.T) {
				cfg := testConfig(t)
				cfg.Filesystem, cfg.Network = mode, network
				inside := filepath.Join(cfg.Workspace, "inside.sock")
				listenUnix(t, inside)
				probe := copyProbe(t, cfg.Workspace)
				t.Setenv("XDG_RUNTIME_DIR", xdg)
				t.Setenv("TMPDIR", tmpd)
				sh := newTestShell(t, cfg)
				r := run(t, sh, quote(probe)+" "+probeCommand+" connect "+strings.Join(append(outside, inside), " "), RunOptions{})
				for _, a := range outside {
					tried++
					if strings.Contains(r.Output, "CONNECTED "+a+"\n") {
						t.Errorf("connected to %s", a)
						continue
					}
					held++
				}
				if !strings.Contains(r.Output, "CONNECTED "+inside) {
					t.Errorf("the workspace's own socket was unreachable: %q", r.Output)
				}
			})
		}
	}
	t.Logf("unix sockets outside: %d connections tried, %d held", tried, held)
}

// TestResolverConfigShowsThroughRun: hiding /run must not break name resolution where
// /etc/resolv.conf links into /run: the link's target shows again, read-only, and nothing else
// of its folder does.
func TestResolverConfigShowsThroughRun(t *testing.T) {
	if !testCaps().MountNS {
		t.Skip("no mount namespaces on this host")
	}
	dir := filepath.Join("/run", "exo-test-"+newNonce()[:8])
	t.Cleanup(func() { os.RemoveAll(dir) })
	write(t, dir, "stub-resolv.conf", "nameserver 192.0.2.53\n")
	write(t, dir, "secret-neighbour", "not for the sandbox\n")
	link := filepath.Join(t.TempDir(), "resolv.conf")
	os.Symlink(filepath.Join(dir, "stub-resolv.conf"), link)
	old := exposedLinks
	exposedLinks = []string{link}
	t.Cleanup(func() { exposedLinks = old })
	sh := newTestShell(t, testConfig(t))
	r := run(t, sh, "cat "+dir+"/stub-resolv.conf; cat "+dir+"/secret-neighbour; echo x >> "+dir+"/stub-resolv.conf && echo WROTE; true", RunOptions{})
	if !strings.Contains(r.Output, "nameserver 192.0.2.53") || strings.Contains(r.Output, "not for the sandbox") || strings.Contains(r.Output, "WROTE") {
		t.Fatalf("resolver config through the cover of /run: %q", r.Output)
	}
}
