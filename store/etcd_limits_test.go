package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"exo/store/etcdtest"
)

// smallNode opens a store on a cluster whose members accept requests of at most limit bytes,
// telling the store so (max-request-bytes in its URL).
func smallNode(t *testing.T, c *etcdtest.Cluster, ns string, limit int) *Store {
	t.Helper()
	s, err := OpenEtcd(t.TempDir(), EtcdConfig{Endpoints: c.Endpoints, Namespace: ns, Node: "n", MaxRequestBytes: limit,
		DialTimeout: 5 * time.Second, RequestTimeout: 15 * time.Second}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// pattern is n bytes that differ from chunk to chunk.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7+i/1000) ^ seed
	}
	return b
}

// latest reads the newest checkpoint of branch at or before at.
func latest(t *testing.T, s *Store, branch string, at uint64) (uint64, []byte, bool) {
	t.Helper()
	var seq uint64
	var blob []byte
	var ok bool
	err := s.View(func(tx *Tx) error {
		var err error
		seq, blob, ok, err = tx.LatestCheckpoint("session", branch, at)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return seq, blob, ok
}

// TestEtcdCheckpointChunks stores checkpoints far bigger than the cluster's request limit
// (64 KiB): they are written in parts and read back whole; a checkpoint whose parts were
// tampered with or lost is skipped for an older one; a single commit that cannot fit says so.
func TestEtcdCheckpointChunks(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	const limit = 64 << 10
	c := etcdtest.Start(t, 1, etcdtest.Options{MaxRequestBytes: limit})
	s := smallNode(t, c, "chunks", limit)
	s.NewBranch("m")
	mustAppend(t, s, "m", 30, 10)
	sizes := map[uint64]int{10: 1 << 20, 20: limit / 2, 30: limit/2 + 1}
	for _, at := range []uint64{10, 20, 30} {
		if err := s.PutCheckpoint("session", "m", at, pattern(sizes[at], byte(at))); err != nil {
			t.Fatalf("checkpoint of %d bytes at %d: %v", sizes[at], at, err)
		}
	}
	for _, at := range []uint64{10, 20, 30} {
		seq, blob, ok := latest(t, s, "m", at)
		if !ok || seq != at || !bytes.Equal(blob, pattern(sizes[at], byte(at))) {
			t.Fatalf("checkpoint at %d: seq %d, %d bytes, ok %v", at, seq, len(blob), ok)
		}
	}
	// An older checkpoint written late does not move the pointer back.
	if err := s.PutCheckpoint("session", "m", 5, []byte(`{"old":true}`)); err != nil {
		t.Fatal(err)
	}
	if seq, _, _ := latest(t, s, "m", 0); seq != 30 {
		t.Fatalf("newest checkpoint after an older one was written: %d", seq)
	}
	// A part tampered with: that checkpoint is skipped for the one before.
	cli := adminClient(t, c.Endpoints)
	e := s.kv.(*etcdEngine)
	part := e.bucketPrefix(chunkPath("session", "m", 30)) + string(chunkKey(1))
	if _, err := cli.Put(context.Background(), part, "tampered"); err != nil {
		t.Fatal(err)
	}
	if seq, _, ok := latest(t, s, "m", 0); !ok || seq != 20 {
		t.Fatalf("with a tampered part: checkpoint %d %v, want 20", seq, ok)
	}
	if _, err := cli.Delete(context.Background(), e.bucketPrefix(chunkPath("session", "m", 10)), clientv3.WithPrefix()); err != nil {
		t.Fatal(err)
	}
	if seq, _, ok := latest(t, s, "m", 19); !ok || seq != 5 {
		t.Fatalf("with lost parts: checkpoint %d %v, want 5", seq, ok)
	}
	// One commit cannot carry it: the error says so, nothing is stored.
	err := s.Update(func(tx *Tx) error { return tx.PutCheckpoint("session", "m", 25, pattern(limit, 1)) })
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "nothing of it was stored") {
		t.Fatalf("a checkpoint too big for one commit: %v", err)
	}
	if seq, _, _ := latest(t, s, "m", 25); seq != 20 {
		t.Fatalf("after the refused write the newest checkpoint at 25 is %d", seq)
	}
}

// TestEtcdRecordTooLarge: a record bigger than the cluster takes is refused with ErrTooLarge
// and nothing of its batch past the records already committed is stored.
func TestEtcdRecordTooLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	const limit = 64 << 10
	c := etcdtest.Start(t, 1, etcdtest.Options{MaxRequestBytes: limit})
	s := smallNode(t, c, "big", limit)
	s.NewBranch("m")
	noise := make([]byte, limit) // incompressible: events may be stored compressed
	rand.Read(noise)
	big := Record{Type: "blob", Actor: "t", Data: []byte(fmt.Sprintf(`{"x":%q}`, base64.StdEncoding.EncodeToString(noise)))}
	evs, err := s.Append("m", rec(1), rec(2), big, rec(3))
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("append of a record bigger than a request: %v", err)
	}
	if len(evs) != 2 {
		t.Fatalf("committed before the big record: %d events", len(evs))
	}
	if head, _, err := s.Head("m"); err != nil || head != 2 {
		t.Fatalf("head %d: %v", head, err)
	}
	if got := len(s.Batches([]Record{rec(1), rec(2), big, rec(3)})); got != 3 {
		t.Fatalf("batches: %d", got)
	}
}
