package e2e

import (
	"bytes"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// usedHome31 makes an EXO_HOME with a session of 31 events (its events on a leaf page of their
// own) and returns it and the session id.
func usedHome31(t *testing.T) (string, string) {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	id := strings.TrimSpace(mustRun(t, home, "new", "--name", "d"))
	for i := 0; i < 30; i++ {
		mustRun(t, home, "say", "d", "message number "+strings.Repeat("x", i))
	}
	mustRun(t, home, "daemon", "stop")
	os.Remove(filepath.Join(home, "daemon.log"))
	os.Remove(filepath.Join(home, "daemon.json"))
	return home, id
}

// copyHome copies an EXO_HOME made by usedHome31 for one case.
func copyHome(t *testing.T, base string) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	if out, err := exec.Command("cp", "-a", base, home).CombinedOutput(); err != nil {
		t.Fatalf("copy home: %v %s", err, out)
	}
	return home
}

// flip overwrites n bytes of path at off with 0xA5 ^ what was there.
func flip(t *testing.T, path string, off int64, n int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := off; i < off+int64(n); i++ {
		b[i] ^= 0xA5
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// bucketPage returns the page of a bucket (by path) in a bbolt file, or the page of the bucket
// holding it inline and where the inline one's value starts (-1 when it has a page of its own).
func bucketPage(t *testing.T, path string, names ...string) (page int64, inlineAt int64) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(names[0]))
		parent := tx.Bucket([]byte(names[0]))
		for _, n := range names[1:] {
			parent, b = b, b.Bucket([]byte(n))
		}
		if b == nil {
			t.Fatalf("no bucket %v", names)
		}
		if root := b.Root(); root != 0 {
			page, inlineAt = int64(root), -1
			return nil
		}
		page = int64(parent.Root())
		if len(names) == 1 {
			page = int64(tx.Cursor().Bucket().Root()) // inline in the root bucket's page
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if inlineAt == -1 {
		return page, -1
	}
	raw, _ := os.ReadFile(path)
	name := []byte(names[len(names)-1])
	lo, hi := page*4096, (page+1)*4096
	// the element key is followed by its value: the inline bucket (16-byte header, then its page)
	i := bytes.Index(raw[lo:hi], name)
	if i < 0 {
		t.Fatalf("inline bucket %v not found", names)
	}
	return (lo + int64(i)) / 4096, lo + int64(i) + int64(len(name))
}

// TestDamagedDatabaseKinds damages exo.db every way a disk, a tool or a person can (cut short,
// emptied, bytes flipped in a meta page, in the leaf page of the session's events, in one
// event, in the journal, in the checkpoints; replaced by a SQLite database, by random bytes,
// by a directory, by a symbolic link out of EXO_HOME or to nothing; made immutable) and drives
// the real binary through each: the daemon and every command say what is wrong with which file
// and what to do (`exo doctor` too, on its report), nothing panics, nothing is written into the damaged file, and `exo verify`
// says what is damaged. An immutable file is read (sessions, log, verify) and every write is
// refused saying how to lift it; bytes flipped inside one event leave it readable and verify
// names the event.
func TestDamagedDatabaseKinds(t *testing.T) {
	t.Parallel()
	type want struct {
		refused bool   // every command refuses the database
		says    string // what the refusal (or verify's answer) says
		// logSays, when set, is what the refusal to print the damaged session's log says
		logSays string
	}
	base, id := usedHome31(t)
	cases := []struct {
		name   string
		damage func(t *testing.T, home, path, id string)
		want   want
	}{
		{"truncated", func(t *testing.T, _, path, _ string) { os.Truncate(path, 20000) },
			want{refused: true, says: "not a whole number of 4096-byte pages"}},
		{"zero length", func(t *testing.T, _, path, _ string) { os.Truncate(path, 0) },
			want{refused: true, says: "missing or empty"}},
		{"meta page flipped", func(t *testing.T, _, path, _ string) { flip(t, path, 16+40, 4) },
			want{refused: true, says: "meta page 0"}},
		{"both meta pages flipped", func(t *testing.T, _, path, _ string) { flip(t, path, 16+40, 4); flip(t, path, 4096+16+40, 4) },
			want{refused: true, says: "meta page"}},
		{"events leaf page flipped", func(t *testing.T, _, path, id string) {
			page, _ := bucketPage(t, path, "events", id)
			flip(t, path, page*4096+16, 12) // the first element's header
		}, want{refused: true, says: "damaged pages"}},
		{"journal flipped", func(t *testing.T, _, path, _ string) {
			page, at := bucketPage(t, path, "journal")
			if at < 0 {
				flip(t, path, page*4096+16, 12)
			} else {
				flip(t, path, at+16, 12) // the inline bucket's page header
			}
		}, want{refused: true, says: "exo.db"}},
		{"checkpoints flipped", func(t *testing.T, _, path, _ string) {
			page, at := bucketPage(t, path, "projections")
			if at < 0 {
				flip(t, path, page*4096+16, 12)
			} else {
				flip(t, path, at+16, 12)
			}
		}, want{refused: true, says: "exo.db"}},
		{"sqlite database", func(t *testing.T, _, path, _ string) {
			// SQLite's own header and an empty first page: what `file` calls a SQLite 3 database
			os.WriteFile(path, append([]byte("SQLite format 3\x00\x10\x00\x01\x01\x00@  "), make([]byte, 4096-24)...), 0o600)
		}, want{refused: true, says: "not an exo database"}},
		{"random bytes", func(t *testing.T, _, path, _ string) {
			b := make([]byte, 65536)
			rand.Read(b)
			os.WriteFile(path, b, 0o600)
		}, want{refused: true, says: "not an exo database"}},
		{"a directory", func(t *testing.T, _, path, _ string) { os.Remove(path); os.Mkdir(path, 0o700) },
			want{refused: true, says: "it is a directory"}},
		{"symlink out of EXO_HOME", func(t *testing.T, _, path, _ string) {
			out := filepath.Join(t.TempDir(), "elsewhere.db")
			os.Rename(path, out)
			os.Symlink(out, path)
		}, want{refused: true, says: "outside"}},
		{"symlink to nothing", func(t *testing.T, _, path, _ string) {
			os.Remove(path)
			os.Symlink(filepath.Join(t.TempDir(), "gone", "exo.db"), path)
		}, want{refused: true, says: "cannot be followed"}},
		{"one event's text flipped", func(t *testing.T, _, path, id string) {
			flipEvent(t, path, id, 10, []byte("number"))
		}, want{says: "first bad event " + id + "@10"}},
		{"one event's JSON broken", func(t *testing.T, _, path, id string) {
			flipEvent(t, path, id, 10, []byte("{"))
		}, want{says: "first bad event " + id + "@10", logSays: id + "@10 is damaged (its data is not JSON)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			home := copyHome(t, base)
			path := filepath.Join(home, "exo.db")
			c.damage(t, home, path, id)
			damaged := snapshot(path)
			noCrash := func(what, out string) {
				t.Helper()
				for _, bad := range []string{"panic", "SIGBUS", "SIGSEGV", "fatal error", "goroutine "} {
					if strings.Contains(out, bad) {
						t.Fatalf("%s crashed (%s):\n%s", what, bad, out)
					}
				}
			}
			for _, args := range [][]string{{"sessions"}, {"say", "d", "after the damage"}, {"log", "d"}} {
				out, errs, code := run(t, home, args...)
				noCrash(strings.Join(args, " "), out+errs)
				if !c.want.refused {
					continue
				}
				if code == 0 || !strings.Contains(errs, path) || !strings.Contains(errs, c.want.says) ||
					!containsAny(errs, "restore", "move it aside", "set EXO_HOME", "replace the link", "move "+home) {
					t.Fatalf("exo %v: exit %d, want a refusal naming %s, saying %q and what to do:\n%s", args, code, path, c.want.says, errs)
				}
			}
			if c.want.refused { // doctor says which file, what is wrong with it and what to do
				out, errs, code := run(t, home, "doctor")
				noCrash("doctor", out+errs)
				if code != 1 || !strings.Contains(out, "database\t"+path) || !strings.Contains(out, c.want.says) ||
					!containsAny(out, "restore a backup", "move "+home+"/exo.db aside") {
					t.Fatalf("doctor: exit %d, want the file, %q and what to do:\n%s%s", code, c.want.says, out, errs)
				}
			}
			out, errs, code := run(t, home, "verify")
			noCrash("verify", out+errs)
			if code != 1 || !strings.Contains(out+errs, c.want.says) {
				t.Fatalf("verify: exit %d, want 1 saying %q:\n%s%s", code, c.want.says, out, errs)
			}
			run(t, home, "daemon", "stop")
			out, errs, code = run(t, home, "daemon", "--idle", "1s")
			noCrash("daemon", out+errs)
			if c.want.refused && (code == 0 || !strings.Contains(errs, path)) {
				t.Fatalf("daemon on a damaged database: exit %d:\n%s", code, errs)
			}
			if c.want.refused && snapshot(path) != damaged {
				t.Fatal("the damaged database was written")
			}
			if !c.want.refused { // readable: everything before the damage is still there, or said to be damaged
				out, errs, code := run(t, home, "log", "d")
				noCrash("log", out+errs)
				if c.want.logSays != "" {
					if code != 1 || !strings.Contains(errs, c.want.logSays) || !strings.Contains(errs, "restore exo.db") {
						t.Fatalf("log of a session with a broken event: exit %d, want it named:\n%s", code, errs)
					}
				} else if n := strings.Count(out, "message number"); code != 0 || n < 29 {
					t.Fatalf("log: exit %d, %d of the 30 messages before the damage:\n%s%s", code, n, out, errs)
				}
				if _, errs, code := run(t, home, "sessions"); code != 0 {
					t.Fatalf("sessions around one damaged event: exit %d %s", code, errs)
				}
			}
		})
	}
}

// flipEvent flips the first byte of what in the stored value of event seq of branch.
func flipEvent(t *testing.T, path, branch string, seq uint64, what []byte) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var val []byte
	db.View(func(tx *bolt.Tx) error {
		key := []byte{0, 0, 0, 0, 0, 0, 0, byte(seq)}
		val = bytes.Clone(tx.Bucket([]byte("events")).Bucket([]byte(branch)).Get(key))
		return nil
	})
	db.Close()
	page, _ := bucketPage(t, path, "events", branch) // the live copy (freed pages may hold older ones)
	raw, _ := os.ReadFile(path)
	at, in := bytes.Index(raw[page*4096:(page+1)*4096], val), bytes.Index(val, what)
	if len(val) < 8 || at < 0 || in < 0 {
		t.Fatalf("%q of event %d's value (%d bytes) not found on page %d", what, seq, len(val), page)
	}
	flip(t, path, page*4096+int64(at+in), 1)
}

// snapshot is what is at path now: a file's bytes, a link's target, or a directory's mark.
func snapshot(path string) string {
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return "absent"
	case fi.Mode()&os.ModeSymlink != 0:
		l, _ := os.Readlink(path)
		return "link " + l
	case fi.IsDir():
		return "dir"
	}
	b, _ := os.ReadFile(path)
	return string(b)
}

// containsAny reports whether s contains one of subs.
func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestImmutableDatabaseReadOnly: an exo.db that may not be written (chattr +i, which binds
// root too) in a home that may: the daemon opens it for reading; sessions, log and verify
// work; a write is refused saying which file and how to lift it, and the file is unchanged.
func TestImmutableDatabaseReadOnly(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("chattr"); err != nil {
		t.Skip("no chattr")
	}
	home, _ := usedHome31(t)
	path := filepath.Join(home, "exo.db")
	if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
		t.Skipf("chattr +i: %v %s (the file system or user cannot make files immutable)", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", path).Run() })
	before := snapshot(path)
	if out := mustRun(t, home, "sessions"); !strings.Contains(out, "d ") {
		t.Fatalf("sessions of a read-only database:\n%s", out)
	}
	_, errs, code := run(t, home, "say", "d", "refused")
	if code == 0 || !strings.Contains(errs, path) || !strings.Contains(errs, "chattr -i") {
		t.Fatalf("a write into an immutable database: exit %d:\n%s", code, errs)
	}
	if out := mustRun(t, home, "verify"); !strings.Contains(out, "ok: 31 events") {
		t.Fatalf("verify: %s", out)
	}
	if log := mustRun(t, home, "log", "d"); strings.Count(log, "message number") != 30 {
		t.Fatalf("log:\n%s", log)
	}
	if snapshot(path) != before {
		t.Fatal("the immutable database changed")
	}
}
