package store

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// BenchmarkCommitFloor measures what a write transaction costs before exo does anything in it,
// with fsync on and off: an empty bbolt Update on a bare file (bbolt still writes a meta page
// and, with sync on, fdatasyncs it); the same transaction through Store.Update (exo's checks of
// the file's identity added); and a bare bbolt Update with a fork's shape (a 130-byte value and
// a 40-byte value put under a new key in two buckets that already hold one key per earlier
// iteration, as the branch and head records are). A fork is one such transaction, so
// BenchmarkFork cannot go below the last of these.
func BenchmarkCommitFloor(b *testing.B) {
	for _, sync := range []bool{false, true} {
		name := map[bool]string{false: "nosync", true: "fsync"}[sync]
		b.Run("bolt-empty/"+name, func(b *testing.B) {
			db := openFloorDB(b, sync)
			measureCPU(b, func(int) error { return db.Update(func(*bolt.Tx) error { return nil }) })
		})
		b.Run("store-empty/"+name, func(b *testing.B) {
			s := openTest(b, Options{NoSync: !sync})
			measureCPU(b, func(int) error { return s.Update(func(*Tx) error { return nil }) })
		})
		branch, head := bytes.Repeat([]byte("b"), 130), bytes.Repeat([]byte("h"), headRecordLen)
		b.Run("bolt-fork-shape/"+name, func(b *testing.B) {
			floorPuts(b, openFloorDB(b, sync), [][2][]byte{{[]byte(pathBranches), branch}, {[]byte(pathHeads), head}})
		})
		b.Run("bolt-one-put/"+name, func(b *testing.B) {
			floorPuts(b, openFloorDB(b, sync), [][2][]byte{{[]byte(pathBranches), bytes.Repeat([]byte("b"), 200)}})
		})
		b.Run("bolt-two-puts-one-bucket/"+name, func(b *testing.B) {
			floorPuts(b, openFloorDB(b, sync), [][2][]byte{{[]byte(pathBranches), branch}, {[]byte(pathBranches), head}})
		})
	}
}

// openFloorDB opens a bare bbolt file in a temporary folder.
func openFloorDB(b *testing.B, sync bool) *bolt.DB {
	db, err := bolt.Open(filepath.Join(b.TempDir(), "floor.db"), 0o600, &bolt.Options{Timeout: time.Second, NoSync: !sync})
	if err != nil {
		b.Fatal(err)
	}
	db.AllocSize = boltAllocSize
	b.Cleanup(func() { db.Close() })
	return db
}

// measureCPU runs op b.N times and reports the process's CPU time per op beside the wall time.
func measureCPU(b *testing.B, op func(i int) error) {
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		if err := op(i); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
}

// floorPuts measures bare bbolt Updates that each put, for every (bucket, value) pair, the
// value under a new key (the iteration's, suffixed by the pair's index) in that bucket, whose
// pages split as exo's do.
func floorPuts(b *testing.B, db *bolt.DB, puts [][2][]byte) {
	measureCPU(b, func(i int) error {
		return db.Update(func(tx *bolt.Tx) error {
			for j, kv := range puts {
				bk, err := tx.CreateBucketIfNotExists(kv[0])
				if err != nil {
					return err
				}
				fill(bk, []string{string(kv[0])}) // split as exo splits it (branches: packed)
				if err := bk.Put(fmt.Appendf(nil, "f%d/%d", i, j), kv[1]); err != nil {
					return err
				}
			}
			return nil
		})
	})
}
