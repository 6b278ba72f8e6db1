package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// unansweredKV fails the range requests for keys fail matches, as a cluster that does not
// answer them in time would (the request fails; nothing is said of what is stored).
type unansweredKV struct {
	clientv3.KV
	fail   atomic.Pointer[func(key string) bool]
	failed atomic.Int64
}

func (k *unansweredKV) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	if f := k.fail.Load(); f != nil && (*f)(key) {
		k.failed.Add(1)
		return nil, status.Error(codes.DeadlineExceeded, "context deadline exceeded (injected)")
	}
	return k.KV.Get(ctx, key, opts...)
}

// TestRealEtcdUnansweredReadIsNoDamage: a check of the heads, a verification, meet reads the
// cluster does not answer. Each fails with that error and the store stays writable: a store
// marks itself damaged for good (and says so to the next process through DamageFile) on
// ErrCorrupt, which a slow cluster is not. Before, the head check wrapped any error of
// reading the last event, or the fork point, as ErrCorrupt, and the verification recorded an
// unanswered read as a problem of what is stored.
func TestRealEtcdUnansweredReadIsNoDamage(t *testing.T) {
	c := sharedReal(t)
	t.Parallel()
	ns := realNS("unanswered")
	s := openNode(t, c.Endpoints, ns, "a", 0)
	if _, err := s.NewBranch("m"); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "m", 3, 1)
	if _, err := s.Fork("f", "m", 2); err != nil { // f's head is m's event 2 until f's first append
		t.Fatal(err)
	}
	e := s.kv.(*etcdEngine)
	kv := &unansweredKV{KV: e.cli.KV}
	e.cli.KV = kv
	events := e.prefix + "events/"
	forkPoint := e.bucketPrefix([]string{pathEvents, "m"}) + fmt.Sprintf("%020d", 2)
	for _, tc := range []struct {
		name string
		fail func(key string) bool
	}{
		{"every event", func(k string) bool { return strings.HasPrefix(k, events) }},
		{"the fork point", func(k string) bool { return k == forkPoint }},
		{"everything", func(string) bool { return true }},
	} {
		kv.fail.Store(&tc.fail)
		before := kv.failed.Load()
		err := s.View(func(tx *Tx) error { return tx.checkHeads() })
		if err == nil || errors.Is(err, ErrCorrupt) {
			t.Fatalf("%s unanswered: the head check says %v", tc.name, err)
		}
		rep, err := s.VerifyAll()
		if err == nil || errors.Is(err, ErrCorrupt) || !rep.OK() {
			t.Fatalf("%s unanswered: verify says %+v, %v", tc.name, rep, err)
		}
		if kv.failed.Load() == before {
			t.Fatalf("%s: no read was refused: the test does not reach the check", tc.name)
		}
		if err := s.Damaged(); err != nil {
			t.Fatalf("%s unanswered: the store is marked damaged: %v", tc.name, err)
		}
		if _, err := os.Stat(filepath.Join(s.home, DamageFile)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s unanswered: %s written (%v)", tc.name, DamageFile, err)
		}
	}
	kv.fail.Store(nil)
	if rep, err := s.VerifyAll(); err != nil || !rep.OK() || rep.Events != 3 {
		t.Fatalf("verify once the cluster answers: %+v %v", rep, err)
	}
	if _, err := s.Append("f", rec(9)); err != nil {
		t.Fatalf("append once the cluster answers: %v", err)
	}
}
