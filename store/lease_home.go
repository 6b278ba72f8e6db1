package store

import (
	"encoding/json"
	"os"
	"path/filepath"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// leaseFileName is the file in EXO_HOME that remembers the lease a daemon on an etcd store
// last held. A daemon killed (kill -9, a crash, a power cut) leaves its node registered under
// that lease until the lease expires; the next daemon of the same home (EXO_HOME is locked:
// one daemon at a time) takes its registration and its branches over at once instead of being
// refused as another live daemon of that node name for up to the lease's TTL. A daemon of
// another home that goes by the same node name is still refused.
const leaseFileName = "etcd-lease.json"

// heldLease is what the lease file holds: which cluster prefix and node the lease was for.
type heldLease struct {
	Prefix string `json:"prefix"`
	Node   string `json:"node"`
	Lease  int64  `json:"lease"`
}

// loadHeldLease returns the lease this home's last daemon held as node under prefix; 0 when
// none is remembered (no file, an unreadable one, or another node's or cluster prefix's).
func loadHeldLease(home, prefix, node string) clientv3.LeaseID {
	if home == "" {
		return 0
	}
	b, err := os.ReadFile(filepath.Join(home, leaseFileName))
	if err != nil {
		return 0
	}
	var h heldLease
	if json.Unmarshal(b, &h) != nil || h.Prefix != prefix || h.Node != node {
		return 0
	}
	return clientv3.LeaseID(h.Lease)
}

// saveHeldLease remembers lease id in home, replacing the file whole (a crash mid-write
// leaves the old one). It is best effort: without it a restart within the lease's TTL is
// refused until the old lease expires, as before.
func saveHeldLease(home, prefix, node string, id clientv3.LeaseID) {
	if home == "" {
		return
	}
	b, _ := json.Marshal(heldLease{Prefix: prefix, Node: node, Lease: int64(id)})
	path := filepath.Join(home, leaseFileName)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
	}
}
