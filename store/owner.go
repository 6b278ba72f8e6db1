package store

import (
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
	lease, err := e.liveLease()
	if err != nil {
		return fmt.Errorf("claim %s: %w", branch, err)
	}
	holder, err := e.claimOwner(branch, lease)
	if err != nil {
		return err
	}
	if holder != "" {
		return fmt.Errorf("claim %s: it is owned by daemon %s, whose lease is alive: %w", branch, holder, ErrNotOwner)
	}
	return nil
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
	owned := clientv3.OpDelete(e.ownedKey(branch))
	_, err := e.cli.Txn(ctx).If(clientv3.Compare(clientv3.Value(key), "=", e.node)).
		Then(clientv3.OpDelete(key), owned).Else(owned).Commit()
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

// Owners returns, in one read, the node owning each branch a live daemon holds on a shared
// store (branch → node); a branch missing from it is owned by nobody. A local store answers
// with nil: this process owns every branch.
func (s *Store) Owners() (map[string]string, error) {
	e, ok := s.kv.(*etcdEngine)
	if !ok {
		return nil, nil
	}
	ctx, cancel := e.ctx()
	defer cancel()
	pfx := e.prefix + "owners/"
	resp, err := e.cli.Get(ctx, pfx, clientv3.WithPrefix())
	if err != nil {
		return nil, fmt.Errorf("list branch owners: %w", err)
	}
	out := make(map[string]string, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		branch, err := url.PathUnescape(strings.TrimPrefix(string(kv.Key), pfx))
		if err == nil {
			out[branch] = string(kv.Value)
		}
	}
	return out, nil
}
