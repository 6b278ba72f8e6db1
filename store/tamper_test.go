package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestTamperDetected flips one byte of one stored event with bbolt directly and checks
// that verification names that event.
func TestTamperDetected(t *testing.T) {
	home := t.TempDir()
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.NewBranch("main")
	mustAppend(t, s, "main", 50, 10)
	s.Fork("side", "main", 20)
	mustAppend(t, s, "side", 5, 5)
	s.Close()

	TamperEvent(t, filepath.Join(home, DBName), "main", 17, func(v []byte) { v[len(v)-40] ^= 0x01 })

	s, err = Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep, err := s.VerifyAll()
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() || rep.Problems[0].Branch != "main" || rep.Problems[0].Seq != 17 {
		t.Fatalf("tamper not named: %+v", rep)
	}
	rep, _ = s.VerifyBranch("side")
	if rep.OK() || rep.Problems[0].Seq != 17 {
		t.Fatalf("fork's ancestry tamper not named: %+v", rep)
	}
}

// TamperEvent rewrites one stored event value in a closed database file.
func TamperEvent(t *testing.T, path, branch string, seq uint64, mutate func([]byte)) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(eventsBucket).Bucket([]byte(branch))
		v := append([]byte(nil), b.Get(seqKey(seq))...)
		mutate(v)
		return b.Put(seqKey(seq), v)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func fileSum(t *testing.T, path string) [32]byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func TestRefusesForeignCorruptNewer(t *testing.T) {
	cases := map[string]struct {
		prepare func(t *testing.T, path string)
		want    error
		text    string
	}{
		"text file": {func(t *testing.T, p string) {
			os.WriteFile(p, bytes.Repeat([]byte("hello world\n"), 2000), 0o600)
		}, ErrForeign, "not an exo database"},
		"other bbolt db": {func(t *testing.T, p string) {
			db, _ := bolt.Open(p, 0o600, nil)
			db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("widgets")); return err })
			db.Close()
		}, ErrForeign, "no exo metadata"},
		"newer schema": {func(t *testing.T, p string) {
			s, _ := openLocked(filepath.Dir(p), Options{})
			s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(metaBucket).Put(metaSchemaKey, seqKey(99)) })
			s.db.Close()
		}, ErrNewerSchema, "upgrade exo"},
		"schema version no exo writes": {func(t *testing.T, p string) {
			s, _ := openLocked(filepath.Dir(p), Options{})
			s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(metaBucket).Put(metaSchemaKey, seqKey(58546795155816450)) })
			s.db.Close()
		}, ErrCorrupt, "no version any exo writes"},
		"a value where a bucket belongs": {func(t *testing.T, p string) {
			s, _ := openLocked(filepath.Dir(p), Options{})
			s.db.Close()
			b, _ := os.ReadFile(p)
			if !unflagBucket(b, string(artifactsBucket)) {
				t.Fatal("no bucket element found to damage")
			}
			os.WriteFile(p, b, 0o600)
		}, ErrCorrupt, "a value where a bucket belongs"},
		"metadata damaged into a value": {func(t *testing.T, p string) {
			s, _ := openLocked(filepath.Dir(p), Options{})
			s.db.Close()
			b, _ := os.ReadFile(p)
			if !unflagBucket(b, string(metaBucket)) {
				t.Fatal("no bucket element found to damage")
			}
			os.WriteFile(p, b, 0o600)
		}, ErrCorrupt, "metadata is unreadable"},
		"damaged pages": {func(t *testing.T, p string) {
			s, _ := openLocked(filepath.Dir(p), Options{})
			s.NewBranch("m")
			mustAppend(t, s, "m", 2000, 500)
			s.db.Close()
			b, _ := os.ReadFile(p)
			for i := 4096 * 2; i < len(b); i += 7 {
				b[i] ^= 0xff
			}
			os.WriteFile(p, b, 0o600)
		}, ErrCorrupt, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			path := filepath.Join(home, DBName)
			c.prepare(t, path)
			before := fileSum(t, path)
			s, err := Open(home, Options{})
			if err == nil {
				// Damage can sit in pages that opening does not read: it must surface on use.
				_, err = s.VerifyAll()
				s.Close()
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
			if !strings.Contains(err.Error(), c.text) || !strings.Contains(err.Error(), path) && c.want != ErrCorrupt {
				t.Fatalf("unclear message: %v", err)
			}
			if fileSum(t, path) != before {
				t.Fatal("refused file was modified")
			}
		})
	}
}

func TestSecondOpenFailsFastNamingHolder(t *testing.T) {
	home := t.TempDir()
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	_, err = Open(home, Options{})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second open: %v", err)
	}
	if !strings.Contains(err.Error(), "exo is already running (pid ") || !strings.Contains(err.Error(), home) {
		t.Fatalf("message does not name the holder: %v", err)
	}
	if time.Since(start) > time.Second {
		t.Fatalf("second open took %v", time.Since(start))
	}
}

// unflagBucket finds the leaf element of the top-level bucket name in a bbolt file's pages and
// clears its bucket flag, so the bucket reads as a plain value: damage no API call can make.
func unflagBucket(b []byte, name string) bool {
	const pageSize, leafPage, bucketLeaf = 4096, 0x02, 0x01
	for off := 2 * pageSize; off+pageSize <= len(b); off += pageSize {
		pg := b[off : off+pageSize]
		if binary.LittleEndian.Uint16(pg[8:]) != leafPage {
			continue
		}
		count := int(binary.LittleEndian.Uint16(pg[10:]))
		for i := range count {
			el := 16 + 16*i
			if el+16 > len(pg) {
				break
			}
			flags := binary.LittleEndian.Uint32(pg[el:])
			pos := int(binary.LittleEndian.Uint32(pg[el+4:]))
			ksize := int(binary.LittleEndian.Uint32(pg[el+8:]))
			if k := el + pos; flags == bucketLeaf && k+ksize <= len(pg) && string(pg[k:k+ksize]) == name {
				binary.LittleEndian.PutUint32(pg[el:], 0)
				return true
			}
		}
	}
	return false
}

// TestForkPointTampered changes a fork's recorded fork point, which reads would follow to the
// parent's events: each change is refused at open or reported by verify, never read as the
// fork's own history.
func TestForkPointTampered(t *testing.T) {
	for _, forkSeq := range []uint64{100, 119, 121, 150, 159, 170, 420} {
		t.Run(fmt.Sprint(forkSeq), func(t *testing.T) {
			home := t.TempDir()
			s, err := Open(home, Options{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			s.NewBranch("main")
			mustAppend(t, s, "main", 300, 25)
			if _, err := s.Fork("side", "main", 120); err != nil {
				t.Fatal(err)
			}
			mustAppend(t, s, "side", 40, 8)
			s.Close()
			ls, _ := openLocked(home, Options{})
			err = ls.db.Update(func(tx *bolt.Tx) error {
				b := tx.Bucket(branchesBucket)
				var br map[string]any
				if err := json.Unmarshal(b.Get([]byte("side")), &br); err != nil {
					return err
				}
				br["fork_seq"] = forkSeq
				v, _ := json.Marshal(br)
				return b.Put([]byte("side"), v)
			})
			ls.db.Close()
			if err != nil {
				t.Fatal(err)
			}
			s, err = Open(home, Options{})
			if err != nil {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("refused, but not as damage: %v", err)
				}
				return
			}
			defer s.Close()
			rep, err := s.VerifyAll()
			if err != nil || rep.OK() {
				t.Fatalf("fork point %d (was 120) went unnoticed: %v %+v", forkSeq, err, rep)
			}
			if s.Damaged() == nil {
				t.Fatal("verify found damage but writes are not refused")
			}
		})
	}
}
