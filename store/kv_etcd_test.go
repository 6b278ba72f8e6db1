package store

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"exo/store/etcdtest"
)

func init() { backends = append(backends, namedBackend{"etcd", etcdBackend}) }

// etcdNS numbers the namespaces of the stores a test opens on one cluster.
var etcdNS atomic.Int64

// etcdBackend opens stores on one embedded single-member cluster, each in its own namespace.
func etcdBackend(t *testing.T) backend {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	openWith := func(tb testing.TB, home string, cfg EtcdConfig, opts Options) (*Store, error) {
		s, err := OpenEtcd(home, cfg, opts)
		if err == nil {
			tb.Cleanup(func() { s.Close() })
		}
		return s, err
	}
	open := func(tb testing.TB, home string, cfg EtcdConfig) *Store {
		tb.Helper()
		s, err := openWith(tb, home, cfg, Options{})
		if err != nil {
			tb.Fatalf("open etcd store: %v", err)
		}
		return s
	}
	return backend{
		name: "etcd",
		open: func(tb testing.TB) *Store {
			ns := fmt.Sprintf("%s-%d", strings.ReplaceAll(tb.Name(), "/", "_"), etcdNS.Add(1))
			return open(tb, tb.TempDir(), EtcdConfig{Endpoints: c.Endpoints, Namespace: ns})
		},
		reopen: func(tb testing.TB, s *Store) *Store {
			tb.Helper()
			e := s.kv.(*etcdEngine)
			ns := e.ns
			if err := s.Close(); err != nil {
				tb.Fatalf("close: %v", err)
			}
			return open(tb, s.Home(), EtcdConfig{Endpoints: c.Endpoints, Namespace: ns, Node: e.node})
		},
		openAgain: func(tb testing.TB, s *Store, opts Options) (*Store, error) {
			e := s.kv.(*etcdEngine)
			return openWith(tb, s.Home(), EtcdConfig{Endpoints: c.Endpoints, Namespace: e.ns, Node: e.node}, opts)
		},
	}
}
