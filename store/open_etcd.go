package store

import (
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
)

// EtcdConfig says how a store reaches an etcd cluster.
type EtcdConfig struct {
	// Endpoints are the cluster's client URLs (host:port or http(s)://host:port).
	Endpoints []string
	// Namespace separates independent teams on one cluster: keys live under exo/v1/<Namespace>/.
	Namespace string
	// Node names this daemon in the cluster (default: host name and a digest of EXO_HOME).
	Node string
	// TLS, when set, is used for every connection to the cluster.
	TLS *tls.Config
	// Username and Password authenticate to a cluster with auth enabled.
	Username, Password string
	// BlobDir is the shared folder artifacts are stored in, by content (default: EXO_HOME's
	// artifacts folder, which other machines cannot read).
	BlobDir string
	// LeaseTTL is how long this daemon's ownerships outlive it (default 10s).
	LeaseTTL time.Duration
	// DialTimeout bounds connecting (default 5s); RequestTimeout each request (default 10s).
	DialTimeout, RequestTimeout time.Duration
	// MaxTxnOps and MaxRequestBytes are the cluster's --max-txn-ops and --max-request-bytes
	// (defaults 128 and 1.5 MiB): appends are batched within them.
	MaxTxnOps, MaxRequestBytes int
}

// withDefaults fills unset fields.
func (c EtcdConfig) withDefaults(home string) EtcdConfig {
	if c.Namespace == "" {
		c.Namespace = "default"
	}
	if c.Node == "" {
		host, _ := os.Hostname()
		sum := sha256.Sum256([]byte(home))
		c.Node = host + "-" + hex.EncodeToString(sum[:3])
	}
	if c.LeaseTTL <= 0 {
		c.LeaseTTL = 10 * time.Second
	}
	if c.DialTimeout <= 0 {
		c.DialTimeout = 5 * time.Second
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = 10 * time.Second
	}
	if c.MaxTxnOps <= 0 {
		c.MaxTxnOps = 128
	}
	if c.MaxRequestBytes <= 0 {
		c.MaxRequestBytes = 3 << 19 // 1.5 MiB
	}
	return c
}

// reconnect is how the client dials a member again after losing it: gRPC's defaults, except
// that the wait between attempts grows to 3 s at most (gRPC's own limit is 120 s, so a daemon
// whose cluster was down for a minute could take minutes to notice it is back; measured: 11 s
// after a 30 s outage). A refused or unanswered dial every 3 s costs the cluster nothing.
var reconnect = grpc.ConnectParams{
	Backoff:           backoff.Config{BaseDelay: time.Second, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 3 * time.Second},
	MinConnectTimeout: 20 * time.Second,
}

// etcdMargin is what a commit leaves free of the cluster's limits for its head, records and
// compares.
const etcdMargin = 16

// OpenEtcd opens the store kept in an etcd cluster. home is still this daemon's EXO_HOME: it
// is locked (one daemon per home), and keeps the damage verdict and, unless BlobDir says
// otherwise, the artifacts. Sessions and other records are this node's; branches, events,
// heads, checkpoints and artifact metadata are shared by every daemon on the cluster.
func OpenEtcd(home string, cfg EtcdConfig, opts Options) (*Store, error) {
	cfg = cfg.withDefaults(home)
	if len(cfg.Endpoints) == 0 {
		return nil, errors.New("open etcd store: no endpoints")
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, fmt.Errorf("create exo home %s: %w", home, err)
	}
	lock, err := lockHome(home)
	if err != nil {
		return nil, err
	}
	s, err := openEtcdLocked(home, cfg, opts)
	if err != nil {
		lock.release()
		return nil, err
	}
	s.lock = lock
	return s, nil
}

// openEtcdLocked connects, takes a lease, registers the node and checks the schema.
func openEtcdLocked(home string, cfg EtcdConfig, opts Options) (*Store, error) {
	where := fmt.Sprintf("etcd cluster %v", cfg.Endpoints)
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   cfg.Endpoints,
		DialTimeout: cfg.DialTimeout,
		TLS:         cfg.TLS,
		Username:    cfg.Username,
		Password:    cfg.Password,
		Logger:      zap.NewNop(),
		DialOptions: []grpc.DialOption{grpc.WithConnectParams(reconnect)},
	})
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", where, err)
	}
	eng := &etcdEngine{cli: cli, prefix: "exo/v1/" + url.PathEscape(cfg.Namespace) + "/", ns: cfg.Namespace, node: cfg.Node, home: home,
		timeout: cfg.RequestTimeout, ttl: cfg.LeaseTTL, maxOps: cfg.MaxTxnOps, maxBytes: cfg.MaxRequestBytes, done: make(chan struct{}),
		reach: newReach(), reads: &readCounter{}}
	cli.KV = reachKV{KV: cli.KV, r: eng.reach, reads: eng.reads}
	eng.held = loadHeldLease(home, eng.prefix, cfg.Node) // this home's last daemon, if killed: its registration is ours
	if _, err := eng.ensureLease(); err != nil {
		eng.close()
		return nil, fmt.Errorf("open %s: %w", where, err)
	}
	blobs := LocalBlobs(home)
	if cfg.BlobDir != "" {
		blobs = SharedFolderBlobs(cfg.BlobDir, cfg.Node)
	}
	s := &Store{home: home, path: filepath.Join(home, DBName), kv: eng, blobs: blobs, codec: NewCodec(opts.Vocabulary), vocab: opts.Vocabulary}
	s.loadDamage()
	if err := s.initSchema(); err != nil {
		eng.close()
		return nil, fmt.Errorf("open %s: %w", where, err)
	}
	if err := blobs.prepare(); err != nil {
		eng.close()
		return nil, err
	}
	if err := s.View(func(tx *Tx) error { return tx.checkHeads() }); isRequestError(err) {
		// The cluster did not answer the check (slow, or losing its quorum): that is no
		// damage, and marking the store damaged would refuse writes for good.
		eng.close()
		return nil, fmt.Errorf("open %s: check the branches' heads: %w", where, err)
	} else if err != nil {
		s.markDamaged(err)
	}
	return s, nil
}
