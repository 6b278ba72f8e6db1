package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// A daemon on etcd holds its ownerships under one lease, kept alive while it runs. The lease
// can be lost while the daemon lives (a partition longer than its TTL, a revoke by an
// operator): then a new one is granted, the node registered again and every branch it owned
// and nobody took over meanwhile claimed again under it. An owner key is never written without
// a live lease.

// nodeInfo is what a daemon publishes about itself under its lease.
type nodeInfo struct {
	Node    string    `json:"node"`
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
}

// aliveKey is the key a node keeps under its lease while it runs.
func (e *etcdEngine) aliveKey(node string) string {
	return e.prefix + "nodes/" + url.PathEscape(node) + "/alive"
}

// liveLease returns the lease this daemon holds, getting a new one first when it was lost.
func (e *etcdEngine) liveLease() (clientv3.LeaseID, error) {
	if l := e.currentLease(); l != 0 {
		return l, nil
	}
	return e.ensureLease()
}

// ensureLease makes sure the engine holds a live lease. When it holds none (at open, or
// after the lease was lost) it grants one, registers the node under it and reclaims the
// node's branches; concurrent callers wait for one grant and share it.
func (e *etcdEngine) ensureLease() (clientv3.LeaseID, error) {
	e.leaseMu.Lock()
	defer e.leaseMu.Unlock()
	if l := e.currentLease(); l != 0 {
		return l, nil
	}
	if e.closed.Load() {
		return 0, errors.New("the store is closed")
	}
	id, err := e.grant()
	if err != nil {
		return 0, err
	}
	if err := e.register(id); err != nil {
		e.revoke(id)
		return 0, err
	}
	if _, err := e.reclaim(id); err != nil {
		e.revoke(id)
		return 0, err
	}
	ch, err := e.cli.KeepAlive(context.Background(), id)
	if err != nil {
		e.revoke(id)
		return 0, fmt.Errorf("keep lease alive: %w", err)
	}
	e.mu.Lock()
	old := e.held
	e.lease, e.held = id, id
	e.mu.Unlock()
	saveHeldLease(e.home, e.prefix, e.node, id)
	if old != 0 && old != id {
		e.revoke(old) // a lease thought lost may still live on the cluster: end it
	}
	go e.keepAlive(ch, id)
	return id, nil
}

// grant asks the cluster for a new lease of the engine's TTL.
func (e *etcdEngine) grant() (clientv3.LeaseID, error) {
	ctx, cancel := e.ctx()
	defer cancel()
	g, err := e.cli.Grant(ctx, int64(max(e.ttl/time.Second, 2)))
	if errors.Is(err, context.DeadlineExceeded) {
		return 0, fmt.Errorf("no member of the cluster answered within %v (is etcd running there, and reachable?): %w", e.timeout, err)
	}
	if err != nil {
		return 0, fmt.Errorf("grant lease: %w", err)
	}
	return g.ID, nil
}

// revoke ends a lease, best effort.
func (e *etcdEngine) revoke(id clientv3.LeaseID) {
	ctx, cancel := e.ctx()
	defer cancel()
	_, _ = e.cli.Revoke(ctx, id)
}

// register publishes the node under lease id. It fails when another live daemon uses the
// node name; the node's own registration under a lease it held before is replaced.
func (e *etcdEngine) register(id clientv3.LeaseID) error {
	host, _ := os.Hostname()
	info, _ := json.Marshal(nodeInfo{Node: e.node, Host: host, PID: os.Getpid(), Started: now()})
	key := e.aliveKey(e.node)
	ctx, cancel := e.ctx()
	defer cancel()
	resp, err := e.cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, string(info), clientv3.WithLease(id))).
		Else(clientv3.OpGet(key)).Commit()
	if err != nil {
		return fmt.Errorf("register node %s: %w", e.node, err)
	}
	if resp.Succeeded {
		return nil
	}
	kvs := resp.Responses[0].GetResponseRange().GetKvs()
	e.mu.Lock()
	held := e.held
	e.mu.Unlock()
	if len(kvs) > 0 && held != 0 && clientv3.LeaseID(kvs[0].Lease) == held && sameDaemon(kvs[0].Value, host) {
		r, err := e.cli.Txn(ctx).If(clientv3.Compare(clientv3.LeaseValue(key), "=", held)).
			Then(clientv3.OpPut(key, string(info), clientv3.WithLease(id))).Commit()
		if err != nil {
			return fmt.Errorf("register node %s: %w", e.node, err)
		}
		if r.Succeeded {
			return nil
		}
	}
	return fmt.Errorf("%w: %q (give this daemon another with node=NAME in the store URL)", ErrNodeInUse, e.node)
}

// sameDaemon reports whether a node registration is this process's or a dead one's of this
// host: a lease remembered in EXO_HOME (see lease_home.go) is taken over only from a daemon
// that cannot be running any more, never from a live one started off a copy of the home.
func sameDaemon(registered []byte, host string) bool {
	var info nodeInfo
	if json.Unmarshal(registered, &info) != nil || info.Host != host {
		return false
	}
	if info.PID == os.Getpid() {
		return true
	}
	return info.PID > 0 && errors.Is(syscall.Kill(info.PID, 0), syscall.ESRCH)
}

// keepAlive drains the lease's keep-alive answers. When they stop (the lease expired during a
// partition or was revoked) while the store is open, the lease is dropped and a new one is
// sought in the background, with backoff, until one is granted or the store closes.
//
// The keep-alives also say whether the cluster answers: one comes every third of the TTL, so
// none for two thirds of it marks the store unreachable (requests that fail say so sooner),
// and the next one marks it back.
func (e *etcdEngine) keepAlive(ch <-chan *clientv3.LeaseKeepAliveResponse, id clientv3.LeaseID) {
	silence := max(e.ttl*2/3, time.Second)
	timer := time.NewTimer(silence)
	for open := true; open; {
		select {
		case _, open = <-ch:
			if open {
				e.reach.up()
			}
		case <-timer.C:
			e.reach.down(fmt.Errorf("%w: no answer to this daemon's lease keep-alive for %v", ErrUnreachable, silence))
		}
		timer.Reset(silence)
	}
	timer.Stop()
	e.dropLease(id)
	for wait := 100 * time.Millisecond; !e.closed.Load(); wait = min(2*wait, 5*time.Second) {
		if e.currentLease() != 0 {
			return // a caller got a new lease meanwhile (and keeps it alive)
		}
		_, err := e.ensureLease()
		if err == nil {
			e.reach.up()
			return
		}
		if !e.closed.Load() {
			e.reach.note(err)
		}
		select {
		case <-e.done:
			return
		case <-time.After(wait):
		}
	}
}

// dropLease forgets lease id as this daemon's live lease (a newer one is kept).
func (e *etcdEngine) dropLease(id clientv3.LeaseID) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.lease == id {
		e.lease = 0
	}
}

// leaseExpired reports whether the cluster says lease id is gone.
func (e *etcdEngine) leaseExpired(id clientv3.LeaseID) bool {
	ctx, cancel := e.ctx()
	defer cancel()
	resp, err := e.cli.TimeToLive(ctx, id)
	return err == nil && resp.TTL <= 0
}

// claimOwner makes this node the owner of branch under lease id, in one transaction that
// also notes the branch among the node's own. It succeeds when nobody holds the branch or
// this node does (under this lease or one it held before); otherwise it returns the holder.
func (e *etcdEngine) claimOwner(branch string, id clientv3.LeaseID) (holder string, err error) {
	key := e.ownerKey(branch)
	claim := []clientv3.Op{clientv3.OpPut(key, e.node, clientv3.WithLease(id)), clientv3.OpPut(e.ownedKey(branch), "")}
	cmp := clientv3.Compare(clientv3.CreateRevision(key), "=", 0)
	for range etcdRetries { // the key changes under us only while a lease ends or a rival claims
		ctx, cancel := e.ctx()
		resp, err := e.cli.Txn(ctx).If(cmp).Then(claim...).Else(clientv3.OpGet(key)).Commit()
		cancel()
		if err != nil {
			return "", fmt.Errorf("claim %s: %w", branch, err)
		}
		if resp.Succeeded {
			return "", nil
		}
		kvs := resp.Responses[0].GetResponseRange().GetKvs()
		switch {
		case len(kvs) == 0: // its lease ended between the compare and the read
			cmp = clientv3.Compare(clientv3.CreateRevision(key), "=", 0)
		case clientv3.LeaseID(kvs[0].Lease) == id:
			return "", nil
		case string(kvs[0].Value) != e.node:
			return string(kvs[0].Value), nil
		default: // this node's, under a lease it held before: move it to the live one
			cmp = clientv3.Compare(clientv3.ModRevision(key), "=", kvs[0].ModRevision)
		}
	}
	return "", fmt.Errorf("claim %s: its owner key kept changing", branch)
}

// reclaim claims again, under lease id, the branches this node owned: those whose owner key
// went with an ended lease, or is still held under one the node held before. Branches another
// daemon took over meanwhile are forgotten and returned.
func (e *etcdEngine) reclaim(id clientv3.LeaseID) (lost []string, err error) {
	ctx, cancel := e.ctx()
	resp, err := e.cli.Get(ctx, e.ownedPrefix(), clientv3.WithPrefix(), clientv3.WithKeysOnly())
	cancel()
	if err != nil {
		return nil, fmt.Errorf("list owned branches: %w", err)
	}
	for _, kv := range resp.Kvs {
		branch, _ := url.PathUnescape(strings.TrimPrefix(string(kv.Key), e.ownedPrefix()))
		holder, err := e.claimOwner(branch, id)
		if err != nil {
			return lost, fmt.Errorf("reclaim: %w", err)
		}
		if holder != "" {
			lost = append(lost, branch)
			ctx, cancel := e.ctx()
			_, _ = e.cli.Delete(ctx, string(kv.Key))
			cancel()
		}
	}
	return lost, nil
}
