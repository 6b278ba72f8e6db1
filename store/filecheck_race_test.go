package store

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestReadsWhileTheFileGrowsSeeNoCut: readers check the file (removed, replaced, cut) before
// each transaction while a writer's commits grow it. A reader that took the file's length
// before a commit grew it, and compared it with the length noted after that commit, read a
// file that shrank: a cut file, the store marked damaged and faulted for good. (The window is
// between two instructions; with a 200 µs sleep put between the two reads this test failed on
// every run: "it was cut from 53248 to 40960 bytes".)
func TestReadsWhileTheFileGrowsSeeNoCut(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{NoSync: true})
	s.db.AllocSize = 4096 // grow the file by a page past what a commit needs: most commits grow it
	if _, err := s.NewBranch("m"); err != nil {
		t.Fatal(err)
	}
	big := Record{Type: "test.event", Actor: "user", Data: json.RawMessage(fmt.Sprintf(`{"pad":%q}`, strings.Repeat("x", 8<<10)))}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for !stop.Load() {
				if _, _, err := s.Head("m"); err != nil {
					t.Errorf("read while the file grows: %v", err)
					return
				}
			}
		})
	}
	for i := 0; i < 400 && !t.Failed(); i++ {
		if _, err := s.Append("m", big); err != nil {
			t.Errorf("append %d: %v", i, err)
			break
		}
	}
	stop.Store(true)
	wg.Wait()
	if err := s.Damaged(); err != nil {
		t.Fatalf("store marked damaged: %v", err)
	}
}
