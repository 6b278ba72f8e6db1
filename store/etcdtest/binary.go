package etcdtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// BinaryCluster is a cluster of real etcd server processes (the etcd binary, e.g. Debian's
// etcd-server) on loopback ports, for the tests that must hold against what users run, not
// only against the embedded servers.
type BinaryCluster struct {
	bin  string
	opts Options
	mu   sync.Mutex
	args [][]string
	cmds []*exec.Cmd
	// killed, per member, is closed once its process was killed: the thread that started it
	// is kept until then (see start).
	killed []chan struct{}
	dirs   []string
	// Endpoints are the members' client URLs (host:port).
	Endpoints []string
	// Metrics are the members' metrics URLs (plain http, whatever the client URLs are).
	Metrics []string
}

// EtcdBinary returns the etcd server binary to test against: $EXO_ETCD_BIN, else etcd on the
// PATH. When there is none the test is skipped, unless $EXO_REQUIRE_ETCD is set (CI), where
// it fails.
func EtcdBinary(tb testing.TB) string {
	tb.Helper()
	bin := findBinary()
	if bin == "" {
		if os.Getenv("EXO_REQUIRE_ETCD") != "" {
			tb.Fatal("EXO_REQUIRE_ETCD is set but no etcd binary was found (set EXO_ETCD_BIN, or install Debian's etcd-server)")
		}
		tb.Skip("no etcd binary (install Debian's etcd-server or set EXO_ETCD_BIN) for the tests against a real etcd server")
	}
	return bin
}

// findBinary is $EXO_ETCD_BIN, else etcd on the PATH, else "".
func findBinary() string {
	if bin := os.Getenv("EXO_ETCD_BIN"); bin != "" {
		return bin
	}
	bin, _ := exec.LookPath("etcd")
	return bin
}

// ErrNoBinary means there is no etcd binary to start (see EtcdBinary).
var ErrNoBinary = errors.New("no etcd binary (install Debian's etcd-server or set EXO_ETCD_BIN)")

// StartBinary starts an n-member cluster of etcd processes and stops it when the test ends.
func StartBinary(tb testing.TB, n int) *BinaryCluster {
	tb.Helper()
	return StartBinaryWith(tb, n, Options{})
}

// StartBinaryWith is StartBinary with options (Fsync does not apply: etcd processes always
// sync).
func StartBinaryWith(tb testing.TB, n int, o Options) *BinaryCluster {
	tb.Helper()
	EtcdBinary(tb)
	c, err := NewBinary(n, o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Stop)
	return c
}

// NewBinary starts an n-member cluster of etcd processes that lives until Stop, for a test
// package to share (from TestMain): ErrNoBinary when there is no etcd binary.
func NewBinary(n int, o Options) (*BinaryCluster, error) {
	bin := findBinary()
	if bin == "" {
		return nil, ErrNoBinary
	}
	for attempt := 1; ; attempt++ {
		c, err := newBinaryOnce(bin, n, o)
		if !errors.Is(err, errMemberDown) || attempt == 3 {
			return c, err
		}
	}
}

// errMemberDown is a member that did not come up with the others: a port chosen free was
// taken before it bound it (another test's server, in the moment between the two). A cluster
// short of one member still answers, until a test takes another one down; it is started
// again on other ports instead.
var errMemberDown = errors.New("an etcd member did not come up")

// newBinaryOnce is one attempt of NewBinary.
func newBinaryOnce(bin string, n int, o Options) (*BinaryCluster, error) {
	c := &BinaryCluster{bin: bin, opts: o, cmds: make([]*exec.Cmd, n), killed: make([]chan struct{}, n)}
	token := fmt.Sprintf("exo-bin-%d", time.Now().UnixNano())
	var peers []string
	clients, peerURLs, metrics := make([]string, n), make([]string, n), make([]string, n)
	for i := range n {
		cu, err := freePort()
		if err != nil {
			return nil, err
		}
		pu, err := freePort()
		if err != nil {
			return nil, err
		}
		mu, err := freePort()
		if err != nil {
			return nil, err
		}
		if o.TLS != nil {
			cu.Scheme = "https"
		}
		clients[i], peerURLs[i], metrics[i] = cu.String(), pu.String(), mu.String()
		peers = append(peers, fmt.Sprintf("m%d=%s", i, pu.String()))
		c.Endpoints = append(c.Endpoints, cu.Host)
		c.Metrics = append(c.Metrics, mu.String())
	}
	for i := range n {
		dir, err := os.MkdirTemp("", "exo-etcd-")
		if err != nil {
			c.Stop()
			return nil, err
		}
		c.dirs = append(c.dirs, dir)
		args := []string{"--name", fmt.Sprintf("m%d", i), "--data-dir", dir,
			"--listen-client-urls", clients[i], "--advertise-client-urls", clients[i],
			"--listen-peer-urls", peerURLs[i], "--initial-advertise-peer-urls", peerURLs[i],
			"--listen-metrics-urls", metrics[i],
			"--initial-cluster", strings.Join(peers, ","), "--initial-cluster-token", token, "--initial-cluster-state", "new",
			"--log-level", "error"}
		if o.TLS != nil {
			args = append(args, "--cert-file", o.TLS.ServerCert, "--key-file", o.TLS.ServerKey,
				"--trusted-ca-file", o.TLS.CA, "--client-cert-auth")
		}
		if o.QuotaBytes > 0 {
			args = append(args, "--quota-backend-bytes", fmt.Sprint(o.QuotaBytes))
		}
		if o.MaxRequestBytes > 0 {
			args = append(args, "--max-request-bytes", fmt.Sprint(o.MaxRequestBytes))
		}
		if o.MaxTxnOps > 0 {
			args = append(args, "--max-txn-ops", fmt.Sprint(o.MaxTxnOps))
		}
		if o.BackendBatchLimit > 0 {
			args = append(args, "--backend-batch-limit", fmt.Sprint(o.BackendBatchLimit))
		}
		c.args = append(c.args, args)
	}
	for i := range n {
		if err := c.start(i); err != nil {
			c.Stop()
			return nil, err
		}
	}
	if err := c.waitReady(); err != nil {
		c.Stop()
		return nil, err
	}
	if err := c.waitMembers(); err != nil {
		c.Stop()
		return nil, err
	}
	if o.User != "" {
		if err := enableAuth(c.Endpoints, o); err != nil {
			c.Stop()
			return nil, err
		}
	}
	return c, nil
}

// start runs member i's process.
func (c *BinaryCluster) start(i int) error {
	cmd := exec.Command(c.bin, c.args[i]...)
	cmd.Stdout, cmd.Stderr = nil, nil
	// The member dies with the test process: a test binary that panics (go test's -timeout
	// does) runs no cleanup, and its members would serve on, orphaned, filling the disk with
	// their WAL files run after run.
	// The kernel sends that signal when the thread that started the child ends, not the
	// process, and Go ends a thread whose locked goroutine returns: the member is started on a
	// thread of its own, kept until the member is killed, so no other thread's end takes it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	started, killed := make(chan error), make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := cmd.Start()
		started <- err
		if err == nil {
			<-killed
		}
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("start etcd member %d: %w", i, err)
	}
	c.mu.Lock()
	c.cmds[i] = cmd
	c.killed[i] = killed
	c.mu.Unlock()
	return nil
}

// Client returns a client of the cluster (with the options' certificates and user), closed
// by the caller.
func (c *BinaryCluster) Client() (*clientv3.Client, error) {
	return newClient(c.Endpoints, c.opts, 5*time.Second, true)
}

// waitReady waits (up to 30 s) until the cluster serves a linearizable read.
func (c *BinaryCluster) waitReady() error {
	cli, err := newClient(c.Endpoints, c.opts, 5*time.Second, false) // auth is not on yet
	if err != nil {
		return err
	}
	defer cli.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := cli.Get(ctx, "exo-ready")
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("etcd cluster not ready after 30s: %w", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Kill kills member i's process (its data stays, so Restart brings it back).
func (c *BinaryCluster) Kill(i int) {
	c.mu.Lock()
	cmd, killed := c.cmds[i], c.killed[i]
	c.cmds[i], c.killed[i] = nil, nil
	c.mu.Unlock()
	if cmd != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		close(killed) // its starting thread may end now
	}
}

// Pause stops member i's process (SIGSTOP): it holds its ports and answers nothing, as a
// partitioned machine does, until Resume.
func (c *BinaryCluster) Pause(i int) { c.signal(i, syscall.SIGSTOP) }

// Resume continues a paused member (SIGCONT).
func (c *BinaryCluster) Resume(i int) { c.signal(i, syscall.SIGCONT) }

// signal sends sig to member i's process.
func (c *BinaryCluster) signal(i int, sig syscall.Signal) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cmd := c.cmds[i]; cmd != nil {
		_ = cmd.Process.Signal(sig)
	}
}

// Restart starts a killed member again on its data (a process that cannot start shows as a
// member that stays down).
func (c *BinaryCluster) Restart(i int) {
	args := append([]string(nil), c.args[i]...)
	for j := range args {
		if args[j] == "new" && args[j-1] == "--initial-cluster-state" {
			args[j] = "existing"
		}
	}
	c.args[i] = args
	_ = c.start(i)
}

// Ranges sums the range requests the members served (see Ranges), from their metrics URLs.
func (c *BinaryCluster) Ranges() (int64, error) { return Ranges(c.Metrics) }

// Stop kills every member and removes their data.
func (c *BinaryCluster) Stop() {
	for i := range c.cmds {
		c.Resume(i)
		c.Kill(i)
	}
	for _, d := range c.dirs {
		_ = os.RemoveAll(d)
	}
}

// waitMembers waits (up to 10 s) until every member answers for itself.
func (c *BinaryCluster) waitMembers() error {
	cli, err := newClient(c.Endpoints, c.opts, 5*time.Second, false) // auth is not on yet
	if err != nil {
		return err
	}
	defer cli.Close()
	deadline := time.Now().Add(10 * time.Second)
	for i, ep := range c.Endpoints {
		for {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			_, err := cli.Status(ctx, ep)
			cancel()
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%w: member %d at %s: %v", errMemberDown, i, ep, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return nil
}

// freePort returns an http URL on a loopback port nobody listens on.
func freePort() (url.URL, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return url.URL{}, fmt.Errorf("find a free port: %w", err)
	}
	addr := l.Addr().String()
	l.Close()
	return url.URL{Scheme: "http", Host: addr}, nil
}

// Leader returns the index of the member that leads the cluster, waiting (up to 30 s) while
// an election runs.
func (c *BinaryCluster) Leader() (int, error) {
	cli, err := c.Client()
	if err != nil {
		return -1, err
	}
	defer cli.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c.mu.Lock()
		live := make([]bool, len(c.cmds))
		for i, cmd := range c.cmds {
			live[i] = cmd != nil
		}
		c.mu.Unlock()
		for i, ep := range c.Endpoints {
			if !live[i] {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			st, err := cli.Status(ctx, ep)
			cancel()
			if err == nil && st.Leader != 0 && st.Leader == st.Header.MemberId {
				return i, nil
			}
		}
		if time.Now().After(deadline) {
			return -1, errors.New("no leader after 30s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
