package store

import (
	"fmt"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestBranchesPacked: branch records created nearly in id order, as the harness's ids
// (creation time first) and rewinds (a session's id and a suffix) come, fill the branches
// bucket's pages instead of leaving each split page half empty; records created out of order
// still land, and the file stays consistent (openTest's cleanup checks every page).
func TestBranchesPacked(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{NoSync: true})
	if _, err := s.NewBranch("root"); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "root", 3, 3)
	var ids []string
	fork := func(id string) {
		t.Helper()
		if _, err := s.Fork(id, "root", 2); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	for i := range 1500 { // four sessions a second, each rewound once
		id := fmt.Sprintf("%08x%08x", 0x6a000000+i/4, uint32(i)*2654435761)
		fork(id)
		fork(id + ".1")
	}
	var st bolt.BucketStats
	if err := s.db.View(func(tx *bolt.Tx) error {
		st = tx.Bucket(branchesBucket).Stats()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// bbolt's default split leaves these 47% full.
	if use := float64(st.LeafInuse) / float64(st.LeafAlloc); st.KeyN != len(ids)+1 || use < 0.7 {
		t.Fatalf("%d branch records fill %.0f%% of their %d leaf pages, want %d filling at least 70%%", st.KeyN, 100*use, st.LeafPageN, len(ids)+1)
	}
	for i := range 500 { // out of order: rewinds of older sessions
		fork(fmt.Sprintf("%s.%d", ids[(i*7919)%len(ids)], 2+i))
	}
	got, err := s.Branches()
	if err != nil || len(got) != len(ids)+1 {
		t.Fatalf("%d branches listed, want %d: %v", len(got), len(ids)+1, err)
	}
}
