package etcdtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// BinaryCluster is a cluster of real etcd server processes (the etcd binary, e.g. Debian's
// etcd-server) on loopback ports, for the tests that must hold against what users run, not
// only against the embedded servers.
type BinaryCluster struct {
	tb   testing.TB
	bin  string
	mu   sync.Mutex
	args [][]string
	cmds []*exec.Cmd
	// Endpoints are the members' client URLs (host:port).
	Endpoints []string
}

// EtcdBinary returns the etcd server binary to test against: $EXO_ETCD_BIN, else etcd on the
// PATH. When there is none the test is skipped, unless $EXO_REQUIRE_ETCD is set (CI), where
// it fails.
func EtcdBinary(tb testing.TB) string {
	tb.Helper()
	bin := os.Getenv("EXO_ETCD_BIN")
	if bin == "" {
		bin, _ = exec.LookPath("etcd")
	}
	if bin == "" {
		if os.Getenv("EXO_REQUIRE_ETCD") != "" {
			tb.Fatal("EXO_REQUIRE_ETCD is set but no etcd binary was found (set EXO_ETCD_BIN, or install Debian's etcd-server)")
		}
		tb.Skip("no etcd binary (install Debian's etcd-server or set EXO_ETCD_BIN) for the tests against a real etcd server")
	}
	return bin
}

// StartBinary starts an n-member cluster of etcd processes and stops it when the test ends.
func StartBinary(tb testing.TB, n int) *BinaryCluster {
	tb.Helper()
	c := &BinaryCluster{tb: tb, bin: EtcdBinary(tb), cmds: make([]*exec.Cmd, n)}
	token := fmt.Sprintf("exo-bin-%d", time.Now().UnixNano())
	var peers []string
	clients, peerURLs := make([]string, n), make([]string, n)
	for i := range n {
		cu, pu := freeURL(tb), freeURL(tb)
		clients[i], peerURLs[i] = cu.String(), pu.String()
		peers = append(peers, fmt.Sprintf("m%d=%s", i, pu.String()))
		c.Endpoints = append(c.Endpoints, cu.Host)
	}
	for i := range n {
		c.args = append(c.args, []string{"--name", fmt.Sprintf("m%d", i), "--data-dir", tb.TempDir(),
			"--listen-client-urls", clients[i], "--advertise-client-urls", clients[i],
			"--listen-peer-urls", peerURLs[i], "--initial-advertise-peer-urls", peerURLs[i],
			"--initial-cluster", strings.Join(peers, ","), "--initial-cluster-token", token, "--initial-cluster-state", "new",
			"--log-level", "error"})
	}
	tb.Cleanup(c.Stop)
	for i := range n {
		c.start(i)
	}
	c.waitReady()
	return c
}

// start runs member i's process.
func (c *BinaryCluster) start(i int) {
	cmd := exec.Command(c.bin, c.args[i]...)
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		c.tb.Fatalf("start etcd member %d: %v", i, err)
	}
	c.mu.Lock()
	c.cmds[i] = cmd
	c.mu.Unlock()
}

// waitReady waits (up to 30 s) until the cluster serves a linearizable read.
func (c *BinaryCluster) waitReady() {
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		c.tb.Fatal(err)
	}
	defer cli.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := cli.Get(ctx, "exo-ready")
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			c.tb.Fatalf("etcd cluster not ready after 30s: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Kill kills member i's process (its data stays, so Restart brings it back).
func (c *BinaryCluster) Kill(i int) {
	c.mu.Lock()
	cmd := c.cmds[i]
	c.cmds[i] = nil
	c.mu.Unlock()
	if cmd != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
}

// Restart starts a killed member again on its data.
func (c *BinaryCluster) Restart(i int) {
	args := append([]string(nil), c.args[i]...)
	for j := range args {
		if args[j] == "new" && args[j-1] == "--initial-cluster-state" {
			args[j] = "existing"
		}
	}
	c.args[i] = args
	c.start(i)
}

// Ranges sums the range requests the members served (see Cluster.Ranges).
func (c *BinaryCluster) Ranges() (int64, error) { return Ranges(c.Endpoints) }

// Stop kills every member.
func (c *BinaryCluster) Stop() {
	for i := range c.cmds {
		c.Kill(i)
	}
}
