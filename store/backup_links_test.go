package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// bothOpens runs fn with the folder opened by openat2 and by the walk from /.
func bothOpens(t *testing.T, fn func(t *testing.T)) {
	for _, walk := range []bool{false, true} {
		noOpenat2.Store(walk)
		t.Run(map[bool]string{false: "openat2", true: "walk"}[walk], fn)
	}
	noOpenat2.Store(false)
}

// TestBackupRefusesLinkAtEachComponent: a path with a symbolic link at any of its folders
// (pointing where the path would lead anyway) is ErrLinkInPath naming the link, and nothing is
// written where it points; the same path without the link is backed up.
func TestBackupRefusesLinkAtEachComponent(t *testing.T) {
	s := openTest(t, Options{})
	s.NewBranch("main")
	mustAppend(t, s, "main", 10, 5)
	bothOpens(t, func(t *testing.T) {
		root := t.TempDir()
		deep := filepath.Join(root, "a", "b", "c")
		os.MkdirAll(deep, 0o700)
		for _, part := range []string{"a", "a/b", "a/b/c"} {
			real := filepath.Join(root, part)
			link := real + "-link"
			os.Symlink(real, link)
			rest, _ := filepath.Rel(real, deep)
			p := filepath.Join(link, rest, "x.db")
			if _, err := s.Backup(context.Background(), p, nil); !errors.Is(err, ErrLinkInPath) || !strings.Contains(err.Error(), link) {
				t.Errorf("a backup to %s: %v", p, err)
			}
		}
		if ents, _ := os.ReadDir(deep); len(ents) != 0 {
			t.Fatalf("a refused backup was written: %v", ents)
		}
		if _, err := s.Backup(context.Background(), filepath.Join(deep, "x.db"), nil); err != nil {
			t.Fatalf("a backup through no link: %v", err)
		}
	})
}

// TestBackupLinkSwappedIn: while backups run, another goroutine exchanges (renameat2
// RENAME_EXCHANGE, as a sandboxed agent can) the backup's folder with a symbolic link to a
// folder it reads. Every backup either lands in the folder it was meant for or is refused as
// going through a link; none ever appears in the agent's folder.
func TestBackupLinkSwappedIn(t *testing.T) {
	s := openTest(t, Options{})
	s.NewBranch("main")
	mustAppend(t, s, "main", 10, 5)
	bothOpens(t, func(t *testing.T) {
		root := t.TempDir()
		race, alt, evil := filepath.Join(root, "ws", "race"), filepath.Join(root, "ws", "race_alt"), filepath.Join(root, "evil")
		os.MkdirAll(race, 0o700)
		os.MkdirAll(evil, 0o700)
		os.Symlink(evil, alt)
		var real unix.Stat_t
		unix.Stat(race, &real)
		var stop atomic.Bool
		var swaps atomic.Int64
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if unix.Renameat2(unix.AT_FDCWD, race, unix.AT_FDCWD, alt, unix.RENAME_EXCHANGE) == nil {
					swaps.Add(1)
				}
			}
		}()
		made, refused := 0, 0
		deadline := time.Now().Add(time.Second)
		for i := 0; time.Now().Before(deadline) || made == 0 || refused == 0; i++ {
			if time.Since(deadline) > 10*time.Second {
				break
			}
			name := "b" + string(rune('a'+i%26)) + time.Now().Format("150405.000000000") + ".db"
			_, err := s.Backup(context.Background(), filepath.Join(race, name), func(dir string) error {
				if dir != race {
					t.Errorf("allow was asked about %s", dir)
				}
				return nil
			})
			switch {
			case err == nil:
				made++
			case errors.Is(err, ErrLinkInPath):
				refused++
			default:
				t.Fatalf("a backup while the folder is swapped: %v", err)
			}
		}
		stop.Store(true)
		wg.Wait()
		if ents, _ := os.ReadDir(evil); len(ents) != 0 {
			t.Fatalf("%d backups were written through the swapped-in link", len(ents))
		}
		// The folder meant is whichever name now holds the original folder.
		got := 0
		for _, p := range []string{race, alt} {
			var st unix.Stat_t
			if unix.Lstat(p, &st) == nil && st.Ino == real.Ino && st.Dev == real.Dev {
				ents, _ := os.ReadDir(p)
				got = len(ents)
			}
		}
		if got != made {
			t.Fatalf("%d backups made, %d in their folder", made, got)
		}
		t.Logf("%d swaps: %d backups made, %d refused", swaps.Load(), made, refused)
	})
}
