package store

import (
	"context"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"exo/store/etcdtest"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// TestClusterMemberAddressTakenByAnother: a member of the cluster is gone and another etcd
// server (of another cluster) listens at its client address, as a test's cluster started
// meanwhile did once its port was free. The report lists the member as not answering: what
// the other server says is not the member's (before, the member read as up, with the other
// server's version and size).
func TestClusterMemberAddressTakenByAnother(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd servers")
	}
	t.Parallel()
	c := etcdtest.Start(t, 3, etcdtest.Options{})
	s := openNode(t, c.Endpoints[:1], "taken", "a", 0)
	victim := 2
	if c.Leader() == 2 {
		victim = 1
	}
	c.Kill(victim)
	other := startOn(t, c.Endpoints[victim])
	info, err := s.Cluster(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	down := 0
	for _, m := range info.Members {
		if m.Err == "" {
			continue
		}
		down++
		if m.Name != "m"+string(rune('0'+victim)) || !strings.Contains(m.Err, "answered by etcd member") {
			t.Errorf("member %s: %s", m.Name, m.Err)
		}
	}
	if down != 1 {
		t.Fatalf("%d members reported down; want the one whose address %s took: %+v", down, other, info.Members)
	}
}

// startOn starts a single-member etcd cluster of its own serving clients at host:port.
func startOn(t *testing.T, hostPort string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	peer := url.URL{Scheme: "http", Host: l.Addr().String()}
	l.Close()
	cfg := embed.NewConfig()
	cfg.Name, cfg.Dir = "other", t.TempDir()
	cu := url.URL{Scheme: "http", Host: hostPort}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{cu}, []url.URL{cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = "other=" + peer.String()
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.UnsafeNoFsync = true
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatalf("start another etcd at %s: %v", hostPort, err)
	}
	t.Cleanup(e.Close)
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		t.Fatal("the other etcd is not ready")
	}
	return hostPort
}
