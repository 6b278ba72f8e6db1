package sandbox

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// listenInOtherNetNS binds unix sockets at addrs from a process in a network namespace of its
// own (unshare -n), so exo's /proc/net/unix does not list them; they close with the test.
func listenInOtherNetNS(t *testing.T, addrs []string) {
	t.Helper()
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare(1) here")
	}
	cmd := exec.Command("unshare", append([]string{"-n", os.Args[0], probeCommand, "listen"}, addrs...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("unshare -n: %v", err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
		for _, a := range addrs {
			os.Remove(a)
		}
	})
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "LISTENING" {
		t.Skipf("cannot bind in another network namespace here: %q", line)
	}
}

// TestSocketsFromOtherNetNSUnreachable: sockets bound by a process in another network
// namespace in /dev/shm are not in exo's /proc/net/unix (the control; and they are live: the
// host connects, last) and were reachable from the sandbox while doctor said "unix sockets
// outside: hidden". /dev/shm is now hidden whole, in both filesystem modes, network on and off,
// and doctor's line says what stays reachable (such a socket anywhere else).
func TestSocketsFromOtherNetNSUnreachable(t *testing.T) {
	if !testCaps().MountNS {
		t.Skip("no mount namespaces on this host (Enforcement says so)")
	}
	id := newNonce()[:8]
	var outside []string
	for _, d := range sharedDirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			outside = append(outside, filepath.Join(d, "exo-test-"+id+".sock"))
		}
	}
	if len(outside) == 0 {
		t.Skip("no shared writable dirs here")
	}
	listenInOtherNetNS(t, outside)
	for _, a := range outside {
		if slices.Contains(boundSockets(), a) {
			t.Fatalf("control: %s is listed in exo's /proc/net/unix: the test proves nothing", a)
		}
	}
	// The liveness control comes last: a connection from here leaves the listener's embryo
	// socket, path and all, in this namespace's /proc/net/unix, and the masks would find it.
	defer func() {
		for _, a := range outside {
			c, err := net.Dial("unix", a)
			if err != nil {
				t.Fatalf("control: the host cannot connect to %s: %v", a, err)
			}
			c.Close()
		}
	}()
	tried, held := 0, 0
	for _, mode := range fsModes(t) {
		for _, network := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/network=%v", mode, network), func(t *testing.T) {
				cfg := testConfig(t)
				cfg.Filesystem, cfg.Network = mode, network
				probe := copyProbe(t, cfg.Workspace)
				sh := newTestShell(t, cfg)
				r := run(t, sh, quote(probe)+" "+probeCommand+" connect "+strings.Join(outside, " "), RunOptions{})
				for _, a := range outside {
					tried++
					if strings.Contains(r.Output, "CONNECTED "+a+"\n") {
						t.Errorf("connected to %s, bound in another network namespace", a)
						continue
					}
					held++
				}
				if s := r.Enforcement.String(); !strings.Contains(s, "another network namespace REACHABLE") {
					t.Errorf("doctor's line claims more than holds: %s", s)
				}
			})
		}
	}
	t.Logf("sockets from another network namespace: %d connections tried, %d held", tried, held)
}
