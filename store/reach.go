package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ErrUnreachable means the store did not answer: no quorum of the etcd cluster could be
// reached within the request timeout (members down, a partition, no leader). Whether a write
// that failed so was stored is not known: etcd keeps the proposal, and applies it if the
// quorum comes back, so what was stored is read again then (the head of a branch is never
// taken from memory after a failed commit). The daemon carries on once the store answers.
var ErrUnreachable = errors.New("the store is unreachable")

// Reachability says whether a shared store answers.
type Reachability struct {
	// Up is set while requests are answered.
	Up bool
	// Err is what the last failed request said while the store is down.
	Err error
	// Since is when the store went down (or came back).
	Since time.Time
	// Outages counts the times the store went down since it opened.
	Outages int
}

// reach tracks whether the cluster answers: every request's outcome and the lease's
// keep-alives move it, and watchers are told of each change.
type reach struct {
	mu      sync.Mutex
	state   Reachability
	changed chan struct{}
}

func newReach() *reach {
	return &reach{state: Reachability{Up: true, Since: now()}, changed: make(chan struct{})}
}

// get returns the state and a channel closed at its next change.
func (r *reach) get() (Reachability, <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.state, r.changed
}

// up notes an answer from the cluster.
func (r *reach) up() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state.Up {
		return
	}
	r.state.Up, r.state.Err, r.state.Since = true, nil, now()
	close(r.changed)
	r.changed = make(chan struct{})
}

// down notes that the cluster did not answer.
func (r *reach) down(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.state.Err = err
	if !r.state.Up {
		return
	}
	r.state.Up, r.state.Since = false, now()
	r.state.Outages++
	close(r.changed)
	r.changed = make(chan struct{})
}

// note moves the state by one request's outcome and returns err, marked ErrUnreachable when
// it says the cluster did not answer.
func (r *reach) note(err error) error {
	if err == nil {
		r.up()
		return nil
	}
	if !isUnreachable(err) {
		r.up() // the cluster answered, with a refusal
		return err
	}
	if !errors.Is(err, ErrUnreachable) {
		err = fmt.Errorf("%w: %w", ErrUnreachable, err)
	}
	r.down(err)
	return err
}

// isUnreachable reports whether err says that no quorum answered (as opposed to a refusal).
func isUnreachable(err error) bool {
	if errors.Is(err, ErrUnreachable) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	for _, e := range []error{rpctypes.ErrNoLeader, rpctypes.ErrTimeout, rpctypes.ErrTimeoutDueToLeaderFail,
		rpctypes.ErrTimeoutDueToConnectionLost, rpctypes.ErrLeaderChanged, rpctypes.ErrUnhealthy, rpctypes.ErrTimeoutWaitAppliedIndex} {
		if errors.Is(err, e) {
			return true
		}
	}
	for _, e := range []error{errors.Unwrap(err), err} {
		if s, ok := status.FromError(e); ok && timedOut(s) {
			return true
		}
	}
	return false
}

// timedOut reports whether a gRPC status says the request was not answered in time: codes
// Unavailable and DeadlineExceeded, and code Unknown with the text of a context's deadline,
// which an etcd member sends when its own wait for the quorum ran out (seen in CI with a
// quorum lost mid-turn: "rpc error: code = Unknown desc = context deadline exceeded").
func timedOut(s *status.Status) bool {
	switch s.Code() {
	case codes.Unavailable, codes.DeadlineExceeded:
		return true
	case codes.Unknown:
		return strings.HasSuffix(s.Message(), context.DeadlineExceeded.Error())
	}
	return false
}

// Reachability returns whether the store answers, and a channel closed at the next change (a
// local store always answers: the channel never closes).
func (s *Store) Reachability() (Reachability, <-chan struct{}) {
	e, ok := s.kv.(*etcdEngine)
	if !ok {
		return Reachability{Up: true}, nil
	}
	return e.reach.get()
}

// reachKV is the client's KV seen through reach: every request's outcome says whether the
// cluster answers, and its errors are marked ErrUnreachable when it did not. It also counts
// the range requests the engine makes (see Store.Reads).
type reachKV struct {
	clientv3.KV
	r     *reach
	reads *readCounter
}

func (k reachKV) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	k.reads.add(1)
	resp, err := k.KV.Get(ctx, key, opts...)
	return resp, k.r.note(err)
}

func (k reachKV) Put(ctx context.Context, key, val string, opts ...clientv3.OpOption) (*clientv3.PutResponse, error) {
	resp, err := k.KV.Put(ctx, key, val, opts...)
	return resp, k.r.note(err)
}

func (k reachKV) Delete(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.DeleteResponse, error) {
	resp, err := k.KV.Delete(ctx, key, opts...)
	return resp, k.r.note(err)
}

func (k reachKV) Do(ctx context.Context, op clientv3.Op) (clientv3.OpResponse, error) {
	if op.IsGet() {
		k.reads.add(1)
	}
	resp, err := k.KV.Do(ctx, op)
	return resp, k.r.note(err)
}

func (k reachKV) Txn(ctx context.Context) clientv3.Txn {
	return &reachTxn{Txn: k.KV.Txn(ctx), k: k}
}

// reachTxn is a transaction whose commit is noted.
type reachTxn struct {
	clientv3.Txn
	k reachKV
}

func (t *reachTxn) If(cs ...clientv3.Cmp) clientv3.Txn   { t.Txn = t.Txn.If(cs...); return t }
func (t *reachTxn) Then(ops ...clientv3.Op) clientv3.Txn { t.Txn = t.Txn.Then(ops...); return t }
func (t *reachTxn) Else(ops ...clientv3.Op) clientv3.Txn { t.Txn = t.Txn.Else(ops...); return t }
func (t *reachTxn) Commit() (*clientv3.TxnResponse, error) {
	resp, err := t.Txn.Commit()
	return resp, t.k.r.note(err)
}

// readCounter counts the range requests a store made to the cluster.
type readCounter struct{ n atomic.Int64 }

func (c *readCounter) add(n int64) { c.n.Add(n) }

// Reads counts the range requests this store made to the cluster since it opened (0 on a
// local store): what following other daemons costs the cluster.
func (s *Store) Reads() int64 {
	e, ok := s.kv.(*etcdEngine)
	if !ok {
		return 0
	}
	return e.reads.n.Load()
}
