package store

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Node names this daemon among the daemons sharing the store ("" for a local bbolt store,
// which only its own process writes).
func (s *Store) Node() string {
	if e, ok := s.kv.(*etcdEngine); ok {
		return e.node
	}
	return ""
}

// Owner returns the node that owns branch and may append to it: on a local store this
// process; on etcd the daemon whose lease holds the branch's owner key, "" once that lease
// expired (the branch may then be claimed).
func (s *Store) Owner(branch string) (string, error) {
	e, ok := s.kv.(*etcdEngine)
	if !ok {
		return "", nil
	}
	ctx, cancel := e.ctx()
	defer cancel()
	resp, err := e.cli.Get(ctx, e.ownerKey(branch))
	if err != nil {
		return "", fmt.Errorf("owner of %s: %w", branch, err)
	}
	if len(resp.Kvs) == 0 {
		return "", nil
	}
	return string(resp.Kvs[0].Value), nil
}

// Claim makes this daemon the owner of branch, which nobody owns (its owner's lease expired,
// or it was given up): the take-over of a session whose daemon died. It fails with ErrNotOwner
// while another live daemon owns it; claiming a branch this daemon owns already is a no-op.
// A local store owns every branch.
func (s *Store) Claim(branch string) error {
	e, ok := s.kv.(*etcdEngine)
	if !ok {
		return nil
	}
	if err := s.View(func(tx *Tx) error { _, err := tx.Branch(branch); return err }); err != nil {
		return fmt.Errorf("claim %s: %w", branch, err)
	}
	if err := e.ensureLease(); err != nil {
		return fmt.Errorf("claim %s: %w", branch, err)
	}
	lease := e.currentLease()
	key := e.ownerKey(branch)
	ctx, cancel := e.ctx()
	defer cancel()
	resp, err := e.cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, e.node, clientv3.WithLease(lease))).
		Else(clientv3.OpGet(key)).Commit()
	if err != nil {
		return fmt.Errorf("claim %s: %w", branch, err)
	}
	kvs := resp.Responses[0].GetResponseRange().GetKvs()
	if resp.Succeeded || len(kvs) > 0 && clientv3.LeaseID(kvs[0].Lease) == lease {
		if _, err := e.cli.Put(ctx, e.ownedKey(branch), ""); err != nil {
			return fmt.Errorf("claim %s: %w", branch, err)
		}
		return nil
	}
	owner := "another daemon"
	if len(kvs) > 0 {
		owner = "daemon " + string(kvs[0].Value)
	}
	return fmt.Errorf("claim %s: it is owned by %s, whose lease is alive: %w", branch, owner, ErrNotOwner)
}

// Release gives up this daemon's ownership of branch (a local store has nothing to give up).
func (s *Store) Release(branch string) error {
	e, ok := s.kv.(*etcdEngine)
	if !ok {
		return nil
	}
	key := e.ownerKey(branch)
	ctx, cancel := e.ctx()
	defer cancel()
	_, err := e.cli.Txn(ctx).If(clientv3.Compare(clientv3.LeaseValue(key), "=", e.currentLease())).
		Then(clientv3.OpDelete(key), clientv3.OpDelete(e.ownedKey(branch))).Commit()
	if err != nil {
		return fmt.Errorf("release %s: %w", branch, err)
	}
	return nil
}

// Nodes lists the daemons alive on the cluster (only this one for a local store).
func (s *Store) Nodes() ([]string, error) {
	e, ok := s.kv.(*etcdEngine)
	if !ok {
		return nil, nil
	}
	ctx, cancel := e.ctx()
	defer cancel()
	pfx := e.prefix + "nodes/"
	resp, err := e.cli.Get(ctx, pfx, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	var out []string
	for _, kv := range resp.Kvs {
		rest := strings.TrimPrefix(string(kv.Key), pfx)
		if name, ok := strings.CutSuffix(rest, "/alive"); ok && !strings.Contains(name, "/") {
			n, _ := url.PathUnescape(name)
			out = append(out, n)
		}
	}
	return out, nil
}

// reclaim takes back, when a daemon starts, the branches its node owned before: those whose
// owner's lease expired (or was revoked by a clean stop) are claimed again; those another
// daemon took over meanwhile are forgotten. It returns the branches taken over by others.
func (s *Store) reclaim() (lost []string, err error) {
	e := s.kv.(*etcdEngine)
	ctx, cancel := e.ctx()
	resp, err := e.cli.Get(ctx, e.ownedPrefix(), clientv3.WithPrefix(), clientv3.WithKeysOnly())
	cancel()
	if err != nil {
		return nil, fmt.Errorf("list owned branches: %w", err)
	}
	for _, kv := range resp.Kvs {
		branch, _ := url.PathUnescape(strings.TrimPrefix(string(kv.Key), e.ownedPrefix()))
		switch err := s.Claim(branch); {
		case errors.Is(err, ErrNotOwner):
			lost = append(lost, branch)
			ctx, cancel := e.ctx()
			_, _ = e.cli.Delete(ctx, string(kv.Key))
			cancel()
		case errors.Is(err, ErrNoBranch):
		case err != nil:
			return lost, err
		}
	}
	return lost, nil
}
