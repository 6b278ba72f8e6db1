package store

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"

	"exo/store/failpoint"
)

// Group commit. On an engine whose every commit is a network round trip and a quorum's fsync
// (etcd), concurrent writers that each commit alone pay that cost once per event. So
// UpdateGrouped queues its transaction and one goroutine commits what is queued together: it
// takes the first queued function, adds those queued behind it while they fit one commit
// (etcd's operations and bytes, from the cost each caller declares), runs them all in one
// transaction and commits it. Each caller returns only once the commit that carries its writes
// is acknowledged, so an append is as durable as before; while one commit is in flight the next
// group fills up, and the more writers wait the more each commit carries.
//
// A group is all or nothing, and its members are independent: when one member's function fails,
// or the commit is refused for a reason that nothing was stored (too large for the cluster, a
// branch owned by another daemon, other writers' changes conflicting with it as often as the
// engine tries again), each member runs again alone and gets its own answer. When
// the outcome is unknown (the cluster did not answer), every member gets that error and nothing
// runs again: running again what may be stored could store it twice.

// Cost is what one grouped transaction adds to a commit: etcd operations and request bytes.
type Cost struct {
	Ops, Bytes int
}

// AppendCost is the cost of appending recs to one branch, with the reads and writes around
// them (the head, the owner fence, a session record): an estimate on the safe side.
func AppendCost(recs ...Record) Cost {
	c := Cost{Ops: len(recs) + 4, Bytes: 512}
	for _, r := range recs {
		c.Bytes += len(r.Data) + len(r.Type) + len(r.Actor) + 128
	}
	return c
}

// groupReq is one queued transaction and where its outcome goes.
type groupReq struct {
	fn   func(*Tx) error
	cost Cost
	done chan error
}

// grouper commits queued transactions together (see above).
type grouper struct {
	s    *Store
	reqs chan *groupReq
	// maxOps and maxBytes bound a group's declared cost.
	maxOps, maxBytes int
	// stop ends the committing goroutine; stopped is closed once it has ended.
	stop, stopped chan struct{}
	stopOnce      sync.Once
	// entered counts the transactions handed to UpdateGrouped.
	entered atomic.Int64
	// queued counts the callers waiting to hand their transaction over.
	queued atomic.Int64
	// commits and members count the groups formed and the transactions they carried.
	commits, members atomic.Int64
}

// errMemberFailed aborts a group whose member's function failed: its members run again alone.
var errMemberFailed = errors.New("a member of a grouped commit failed")

// groupCommits is whether a store on this engine groups concurrent transactions: only an
// engine that bounds its commits (etcd) does; bbolt's commits are local.
func (s *Store) groupCommits() (*grouper, bool) {
	l, ok := s.kv.(interface{ limits() (int, int) })
	if !ok || s.noGroup {
		return nil, false
	}
	s.groupOnce.Do(func() {
		maxOps, maxBytes := l.limits()
		g := &grouper{s: s, reqs: make(chan *groupReq), maxOps: maxOps - etcdMargin, maxBytes: maxBytes / 2,
			stop: make(chan struct{}), stopped: make(chan struct{})}
		go g.run()
		s.group.Store(g)
	})
	g := s.group.Load() // nil once the store closed before any grouped transaction
	return g, g != nil
}

// UpdateGrouped runs fn in a read-write transaction as Update does, which it may share with
// other concurrent UpdateGrouped calls (see group.go): fn's writes commit together, or not at
// all, and it returns once they are committed. fn may run more than once (as with Update) and
// must not start another transaction of this store. cost is what fn writes, at most (see
// AppendCost); a commit too large for the cluster is refused with ErrTooLarge all the same.
func (s *Store) UpdateGrouped(cost Cost, fn func(*Tx) error) error {
	g, ok := s.groupCommits()
	if !ok {
		return s.Update(fn)
	}
	r := &groupReq{fn: fn, cost: cost, done: make(chan error, 1)}
	g.entered.Add(1)
	g.queued.Add(1)
	select {
	case g.reqs <- r:
	case <-g.stopped:
		g.queued.Add(-1)
		return s.Update(fn) // closing: the engine answers that it is closed
	}
	return <-r.done
}

// groupsInFlight is how many group commits may be in flight at once: while one waits for the
// cluster the next fills up and goes, so the cluster's own pipeline (one raft batch and fsync
// for the proposals that arrive together) is used as well.
const groupsInFlight = 2

// run commits queued transactions in groups until the store closes.
func (g *grouper) run() {
	var inflight sync.WaitGroup
	defer func() {
		inflight.Wait()
		close(g.stopped)
	}()
	slots := make(chan struct{}, groupsInFlight)
	var next *groupReq
	for {
		if next == nil {
			select {
			case next = <-g.reqs:
				g.queued.Add(-1)
			case <-g.stop:
				return
			}
		}
		slots <- struct{}{} // while every slot is busy, the queue grows: the next group is larger
		runtime.Gosched()   // callers just answered are about to queue again: let them
		batch, cost := []*groupReq{next}, next.cost
		next = nil
	fill:
		for {
			select {
			case r := <-g.reqs:
				g.queued.Add(-1)
				if cost.Ops+r.cost.Ops > g.maxOps || cost.Bytes+r.cost.Bytes > g.maxBytes {
					next = r // the first of the next group
					break fill
				}
				batch = append(batch, r)
				cost.Ops += r.cost.Ops
				cost.Bytes += r.cost.Bytes
			default:
				break fill
			}
		}
		inflight.Go(func() {
			defer func() { <-slots }()
			g.commit(batch)
		})
	}
}

// commit commits a group in one transaction, or its members alone (see group.go).
func (g *grouper) commit(batch []*groupReq) {
	g.commits.Add(1)
	g.members.Add(int64(len(batch)))
	if len(batch) == 1 {
		batch[0].done <- g.s.Update(batch[0].fn)
		return
	}
	failpoint.Hit("group.commit") // tests kill exo with a group formed, its commit not yet sent
	err := g.s.Update(func(tx *Tx) error {
		for _, r := range batch {
			if err := r.fn(tx); err != nil {
				return errMemberFailed
			}
		}
		return nil
	})
	if err != nil && (errors.Is(err, errMemberFailed) || errors.Is(err, ErrTooLarge) || errors.Is(err, ErrNotOwner) || errors.Is(err, errConflict)) {
		for _, r := range batch {
			r.done <- g.s.Update(r.fn)
		}
		return
	}
	if err == nil {
		failpoint.Hit("group.committed") // committed, no member answered yet
	}
	for i, r := range batch {
		r.done <- err
		if i == 0 && err == nil {
			failpoint.Hit("group.answering") // one member answered, the others not yet
		}
	}
}

// close ends the committing goroutine once the group in hand has been answered; later
// callers run alone.
func (g *grouper) close() {
	g.stopOnce.Do(func() { close(g.stop) })
	<-g.stopped
}

// closeGroup stops group commit, if it started.
func (s *Store) closeGroup() {
	s.groupOnce.Do(func() {}) // none starts after this
	if g := s.group.Load(); g != nil {
		g.close()
	}
}

// GroupStats returns how many groups of transactions UpdateGrouped formed (each one commit,
// unless a member's failure made its members commit alone) and how many transactions they
// carried (0, 0 on an engine that does not group).
func (s *Store) GroupStats() (commits, members int64) {
	g := s.group.Load()
	if g == nil {
		return 0, 0
	}
	return g.commits.Load(), g.members.Load()
}

// groupState is the Store's part of group commit.
type groupState struct {
	groupOnce sync.Once
	group     atomic.Pointer[grouper]
	// noGroup makes UpdateGrouped an Update (benchmarks compare both).
	noGroup bool
}
