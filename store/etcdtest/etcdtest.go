// Package etcdtest starts embedded etcd clusters (go.etcd.io/etcd/server/v3/embed) for the
// tests and benchmarks of exo's etcd store: real etcd servers on loopback ports; and clusters
// of etcd server processes (the etcd binary users run, see binary.go), which a test package
// may share.
package etcdtest

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// Options tunes a cluster.
type Options struct {
	// Fsync keeps etcd's fsyncs (off by default: tests need no durability across power cuts).
	Fsync bool
	// QuotaBytes is the backend quota (0: etcd's default).
	QuotaBytes int64
	// MaxRequestBytes and MaxTxnOps are the members' --max-request-bytes and --max-txn-ops
	// (0: etcd's defaults, 1.5 MiB and 128).
	MaxRequestBytes, MaxTxnOps uint
	// BackendBatchLimit is the members' --backend-batch-limit (0: etcd's default). etcd checks
	// its quota against the size of its backend as of the last backend commit, which comes
	// every 100 ms by default: writes arriving faster than that overshoot the quota by what
	// they wrote meanwhile. A limit of 1 commits after every write, so the quota is checked
	// against the size it has.
	BackendBatchLimit int
	// TLS, when set, makes the members serve clients over TLS with these certificates and
	// require a client certificate signed by its authority.
	TLS *Certs
	// User and Password, when set, enable auth: the user may read and write keys under exo/
	// (and nothing else); root's password is Password too.
	User, Password string
}

// Cluster is a running embedded cluster.
type Cluster struct {
	tb      testing.TB
	mu      sync.Mutex
	cfgs    []*embed.Config
	members []*embed.Etcd
	// Endpoints are the members' client URLs.
	Endpoints []string
}

// Start starts an n-member cluster and stops it when the test ends. Ports are picked free;
// when another test takes one meanwhile, it starts again on new ones.
func Start(tb testing.TB, n int, o Options) *Cluster {
	tb.Helper()
	for attempt := 1; ; attempt++ {
		c, err := start(tb, n, o)
		if err == nil {
			return c
		}
		if attempt == 4 || !strings.Contains(err.Error(), "address already in use") {
			tb.Fatalf("start etcd: %v", err)
		}
	}
}

// start makes one attempt at starting a cluster.
func start(tb testing.TB, n int, o Options) (*Cluster, error) {
	c := &Cluster{tb: tb, members: make([]*embed.Etcd, n)}
	var peers []string
	token := fmt.Sprintf("exo-%d", time.Now().UnixNano())
	for i := range n {
		cfg := embed.NewConfig()
		cfg.Name = fmt.Sprintf("m%d", i)
		cfg.Dir = tb.TempDir()
		cfg.BcryptCost = 4 // bcrypt's minimum: password checks at the default cost take seconds under -race on a loaded machine
		cu, pu := freeURL(tb), freeURL(tb)
		if o.TLS != nil {
			cu.Scheme = "https"
			cfg.ClientTLSInfo.CertFile, cfg.ClientTLSInfo.KeyFile = o.TLS.ServerCert, o.TLS.ServerKey
			cfg.ClientTLSInfo.TrustedCAFile, cfg.ClientTLSInfo.ClientCertAuth = o.TLS.CA, true
		}
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{cu}, []url.URL{cu}
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{pu}, []url.URL{pu}
		cfg.InitialClusterToken = token
		cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
		cfg.UnsafeNoFsync = !o.Fsync
		cfg.QuotaBackendBytes = o.QuotaBytes
		if o.MaxRequestBytes > 0 {
			cfg.MaxRequestBytes = o.MaxRequestBytes
		}
		if o.MaxTxnOps > 0 {
			cfg.MaxTxnOps = o.MaxTxnOps
		}
		if o.BackendBatchLimit > 0 {
			cfg.BackendBatchLimit = o.BackendBatchLimit
		}
		peers = append(peers, cfg.Name+"="+pu.String())
		c.cfgs = append(c.cfgs, cfg)
		c.Endpoints = append(c.Endpoints, cu.Host)
	}
	for _, cfg := range c.cfgs {
		cfg.InitialCluster = strings.Join(peers, ",")
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.startMember(i)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			c.Stop()
			return nil, err
		}
	}
	tb.Cleanup(c.Stop)
	if o.User != "" {
		if err := enableAuth(c.Endpoints, o); err != nil {
			c.Stop()
			return nil, err
		}
	}
	return c, nil
}

// newClient returns a client of endpoints with the options' certificates and, when withUser
// is set, its user (not before auth is on), closed by the caller.
func newClient(endpoints []string, o Options, dial time.Duration, withUser bool) (*clientv3.Client, error) {
	cfg := clientv3.Config{Endpoints: endpoints, DialTimeout: dial, Logger: zap.NewNop()}
	if withUser {
		cfg.Username, cfg.Password = o.User, o.Password
	}
	if o.TLS != nil {
		t, err := o.TLS.ClientConfig()
		if err != nil {
			return nil, err
		}
		cfg.TLS = t
	}
	return clientv3.New(cfg)
}

// enableAuth adds root and the user (read and write under exo/) and turns auth on.
func enableAuth(endpoints []string, o Options) error {
	cli, err := newClient(endpoints, o, 10*time.Second, false)
	if err != nil {
		return err
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	steps := []func() error{
		func() error { _, err := cli.UserAdd(ctx, "root", o.Password); return err },
		func() error { _, err := cli.UserGrantRole(ctx, "root", "root"); return err },
		func() error { _, err := cli.RoleAdd(ctx, "exo"); return err },
		func() error {
			_, err := cli.RoleGrantPermission(ctx, "exo", "exo/", clientv3.GetPrefixRangeEnd("exo/"), clientv3.PermissionType(clientv3.PermReadWrite))
			return err
		},
		func() error { _, err := cli.UserAdd(ctx, o.User, o.Password); return err },
		func() error { _, err := cli.UserGrantRole(ctx, o.User, "exo"); return err },
		func() error { _, err := cli.AuthEnable(ctx); return err },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return fmt.Errorf("enable auth: %w", err)
		}
	}
	return nil
}

// startMember starts member i and waits until it serves.
func (c *Cluster) startMember(i int) error {
	e, err := embed.StartEtcd(c.cfgs[i])
	if err != nil {
		return err
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(30 * time.Second):
		e.Close()
		return fmt.Errorf("member %d not ready after 30s", i)
	}
	c.mu.Lock()
	c.members[i] = e
	c.mu.Unlock()
	return nil
}

// Kill stops member i at once (its data stays, so Restart brings it back).
func (c *Cluster) Kill(i int) {
	c.mu.Lock()
	e := c.members[i]
	c.members[i] = nil
	c.mu.Unlock()
	if e != nil {
		e.Server.HardStop()
		e.Close()
	}
}

// Leader returns the index of the member that leads the cluster, waiting (up to 30s) while an
// election runs.
func (c *Cluster) Leader() int {
	c.tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		for i, e := range c.members {
			if e != nil && e.Server.Leader() == e.Server.MemberID() {
				c.mu.Unlock()
				return i
			}
		}
		c.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
	c.tb.Fatalf("no leader after 30s")
	return -1
}

// Restart starts a killed member again on its data.
func (c *Cluster) Restart(i int) {
	c.tb.Helper()
	c.cfgs[i].ClusterState = embed.ClusterStateFlagExisting
	if err := c.startMember(i); err != nil {
		c.tb.Fatalf("restart member %d: %v", i, err)
	}
}

// Stop stops every member.
func (c *Cluster) Stop() {
	for i := range c.members {
		c.Kill(i)
	}
}

// freeURL returns an http URL on a loopback port nobody listens on.
func freeURL(tb testing.TB) url.URL {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("find a free port: %v", err)
	}
	addr := l.Addr().String()
	l.Close()
	return url.URL{Scheme: "http", Host: addr}
}
