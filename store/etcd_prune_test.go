package store

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"exo/store/etcdtest"
)

// TestEtcdPruneChunkedCheckpoints: on a cluster taking 64 KiB and 16 operations per request,
// checkpoints of one to twenty parts (one whose parts do not fit one commit with it) are
// written and pruned while a second daemon prunes the same branch at the same time. Afterwards
// no part is left without its manifest, no manifest without its parts, every kept checkpoint
// reads back byte for byte, and one the pointer names is never dropped.
func TestEtcdPruneChunkedCheckpoints(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	const limit, ops = 64 << 10, 16
	c := etcdtest.Start(t, 1, etcdtest.Options{MaxRequestBytes: limit, MaxTxnOps: ops})
	open := func(node string) *Store {
		s, err := OpenEtcd(t.TempDir(), EtcdConfig{Endpoints: c.Endpoints, Namespace: "prune", Node: node,
			MaxRequestBytes: limit, MaxTxnOps: ops, RequestTimeout: 15 * time.Second}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	a, b := open("a"), open("b")
	a.NewBranch("m")
	mustAppend(t, a, "m", 600, 100)
	size := func(at uint64) int {
		switch {
		case at == 40:
			return 20 * (limit / 2) // 20 parts: with its manifest more than one commit deletes
		case at%30 == 0:
			return 1000 // stored whole
		}
		return int(at%4+1)*(limit/2) - 7 // one to four parts
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the other daemon prunes the same branch meanwhile
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := b.PruneCheckpoints("session", "m"); err != nil {
				t.Errorf("concurrent prune: %v", err)
				return
			}
		}
	}()
	for at := uint64(10); at <= 600; at += 10 {
		if err := a.PutCheckpoint("session", "m", at, pattern(size(at), byte(at))); err != nil {
			t.Fatalf("checkpoint at %d: %v", at, err)
		}
		if _, err := a.PruneCheckpoints("session", "m"); err != nil {
			t.Fatalf("prune at %d: %v", at, err)
		}
	}
	close(stop)
	wg.Wait()
	cli := adminClient(t, c.Endpoints)
	kept := checkChunkInvariant(t, cli, a, "m", size)
	if len(kept) > 24 || kept[len(kept)-1] != 600 {
		t.Fatalf("kept %v", kept)
	}

	// The pointer names an older checkpoint (an attacker, a bug): pruning keeps it.
	for at := uint64(610); at <= 700; at += 10 {
		mustAppend(t, a, "m", 10, 10)
		if err := a.PutCheckpoint("session", "m", at, pattern(size(at), byte(at))); err != nil {
			t.Fatal(err)
		}
	}
	seqs, _ := a.checkpointSeqs("session", "m")
	victim := prunable(seqs)[0]
	rawPut(t, a, []byte("m"), seqKey(victim), pathCheckpointHeads, "session")
	if n, err := a.PruneCheckpoints("session", "m"); err != nil || n == 0 {
		t.Fatalf("prune: %d %v", n, err)
	}
	kept = checkChunkInvariant(t, cli, a, "m", size)
	if !containsSeq(kept, victim) {
		t.Fatalf("the checkpoint the pointer names (%d) was dropped: %v", victim, kept)
	}
}

// containsSeq reports whether seqs holds seq.
func containsSeq(seqs []uint64, seq uint64) bool {
	for _, s := range seqs {
		if s == seq {
			return true
		}
	}
	return false
}

// checkChunkInvariant reads the branch's checkpoints and parts straight from the cluster:
// every part belongs to a manifest, every manifest's parts are all there, and every checkpoint
// reads back as written. It returns the kept seqs.
func checkChunkInvariant(t *testing.T, cli *clientv3.Client, s *Store, branch string, size func(uint64) int) []uint64 {
	t.Helper()
	e := s.kv.(*etcdEngine)
	ctx := context.Background()
	cps, err := cli.Get(ctx, e.bucketPrefix([]string{pathProjections, "session", branch}), clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	manifests := map[uint64]bool{}
	var kept []uint64
	for _, kv := range cps.Kvs {
		seq := seqOf(t, string(kv.Key))
		kept = append(kept, seq)
		manifests[seq] = bytes.HasPrefix(kv.Value, []byte(chunkMagic))
	}
	parts, err := cli.Get(ctx, e.bucketPrefix([]string{pathCheckpointChunks, "session", branch}), clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range parts.Kvs {
		dir := strings.TrimSuffix(string(kv.Key), "/"+lastPart(string(kv.Key)))
		if seq := seqOf(t, dir); !manifests[seq] {
			t.Fatalf("part %s outlives its manifest (kept: %v)", kv.Key, kept)
		}
	}
	err = s.View(func(tx *Tx) error {
		b, _, err := tx.tx.bucket(pathProjections, "session", branch)
		if err != nil {
			return err
		}
		for _, seq := range kept {
			v, err := b.get(seqKey(seq))
			if err != nil {
				return err
			}
			blob, ok, err := tx.unchunk("session", branch, seq, v)
			if err != nil || !ok || !bytes.Equal(blob, pattern(size(seq), byte(seq))) {
				return fmt.Errorf("checkpoint %d: %d bytes, whole %v, as written %v (%v)", seq, len(blob), ok, bytes.Equal(blob, pattern(size(seq), byte(seq))), err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return kept
}

// seqOf reads the 20-digit seq at the end of an etcd key.
func seqOf(t *testing.T, key string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(lastPart(key), 10, 64)
	if err != nil {
		t.Fatalf("key %s: %v", key, err)
	}
	return n
}

// lastPart is what follows a key's last slash.
func lastPart(key string) string { return key[strings.LastIndexByte(key, '/')+1:] }

// TestEtcdPruneSweepsOrphanParts: parts left without a manifest (a daemon stopped while
// writing a checkpoint, or while pruning one) are removed by the branch's next prune once they
// are older than its newest four checkpoints; those of a write that may still run (newer) stay.
func TestEtcdPruneSweepsOrphanParts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	const limit = 64 << 10
	c := etcdtest.Start(t, 1, etcdtest.Options{MaxRequestBytes: limit})
	s, err := OpenEtcd(t.TempDir(), EtcdConfig{Endpoints: c.Endpoints, Namespace: "orphans", Node: "a",
		MaxRequestBytes: limit, RequestTimeout: 15 * time.Second}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.NewBranch("m")
	mustAppend(t, s, "m", 200, 100)
	size := func(at uint64) int { return limit - 11 } // two parts each
	plant := func(seq uint64) {
		for i := range 2 {
			rawPut(t, s, chunkKey(i), pattern(limit/2, byte(i)), chunkPath("session", "m", seq)...)
		}
	}
	for at := uint64(10); at <= 100; at += 10 {
		if err := s.PutCheckpoint("session", "m", at, pattern(size(at), byte(at))); err != nil {
			t.Fatal(err)
		}
	}
	plant(15)  // a write cut short long ago
	plant(75)  // one cut short among the newest four's span: kept for now
	plant(115) // a write still running, past the newest
	cli := adminClient(t, c.Endpoints)
	hasParts := func(seq uint64) bool {
		resp, err := cli.Get(context.Background(), s.kv.(*etcdEngine).bucketPrefix(chunkPath("session", "m", seq)), clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			t.Fatal(err)
		}
		return resp.Count > 0
	}
	if _, err := s.PruneCheckpoints("session", "m"); err != nil {
		t.Fatal(err)
	}
	if hasParts(15) || !hasParts(75) || !hasParts(115) {
		t.Fatalf("after the first prune: 15 %v, 75 %v, 115 %v", hasParts(15), hasParts(75), hasParts(115))
	}
	if err := s.PutCheckpoint("session", "m", 110, pattern(size(110), 110)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PruneCheckpoints("session", "m"); err != nil {
		t.Fatal(err)
	}
	if hasParts(75) || !hasParts(115) {
		t.Fatalf("after the second prune: 75 %v, 115 %v", hasParts(75), hasParts(115))
	}
	if err := s.dropParts(chunkPath("session", "m", 115)); err != nil {
		t.Fatal(err)
	}
	kept := checkChunkInvariant(t, cli, s, "m", size)
	if kept[len(kept)-1] != 110 || len(kept) < 5 {
		t.Fatalf("kept %v", kept)
	}
}
