package harness

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"exo/store"
)

// note is a small record naming itself.
func note(text string) store.Record {
	return MustRecord(TypeInvocationReceived, ActorUser, InvocationReceived{Text: text})
}

// texts returns the prompts of a session's events from seq from on.
func texts(t *testing.T, h *Harness, sessionID string, from uint64) []string {
	t.Helper()
	evs, err := h.Events(sessionID, from, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		p, err := Decode(e)
		if err != nil {
			t.Fatal(err)
		}
		if inv, ok := p.(*InvocationReceived); ok {
			out = append(out, inv.Text)
		}
	}
	return out
}

// commitsOf collects the commits published for a session (one notice per commit) until stop.
func commitsOf(h *Harness, sessionID string) (get func() [][]string, stop func()) {
	ch, cancel := h.Subscribe(256)
	var mu sync.Mutex
	var commits [][]string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for n := range ch {
			if n.Session != sessionID || len(n.Events) == 0 {
				continue
			}
			var c []string
			for _, e := range n.Events {
				if p, err := Decode(e); err == nil {
					if inv, ok := p.(*InvocationReceived); ok {
						c = append(c, inv.Text)
					}
				}
			}
			mu.Lock()
			commits = append(commits, c)
			mu.Unlock()
		}
	}()
	get = func() [][]string {
		mu.Lock()
		defer mu.Unlock()
		return append([][]string(nil), commits...)
	}
	return get, func() { cancel(); <-done }
}

// waitFor polls cond until it holds (the machine may be loaded: no fixed sleeps decide).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestHeldRecordsGoFirstInTheNextCommit: records held for a session are committed by its next
// append, in the same transaction and before that append's own records; the append returns only
// its own events; nothing held is committed before that.
func TestHeldRecordsGoFirstInTheNextCommit(t *testing.T) {
	h := openTest(t, Options{})
	s, err := h.NewSession(NewSessionOptions{Name: "hold"})
	if err != nil {
		t.Fatal(err)
	}
	head := func() uint64 { st, _ := h.State(s.ID); return st.Head }
	before := head()
	commits, stop := commitsOf(h, s.ID)
	h.Hold(s.ID, s.Branch, 0, note("started"))
	h.Hold(s.ID, s.Branch, 0, note("completed"))
	if head() != before {
		t.Fatal("held records were committed before any append")
	}
	evs, err := h.AppendOn(s.ID, s.Branch, note("snapshot"))
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 || evs[0].Seq != before+3 {
		t.Fatalf("the append returned %d events (seq %d), want its own one at %d", len(evs), evs[0].Seq, before+3)
	}
	if got := texts(t, h, s.ID, before+1); fmt.Sprint(got) != "[started completed snapshot]" {
		t.Fatalf("log order %v", got)
	}
	waitFor(t, "the commit's notice", func() bool { return len(commits()) == 1 })
	stop()
	if c := commits(); fmt.Sprint(c) != "[[started completed snapshot]]" {
		t.Fatalf("commits %v, want one carrying all three", c)
	}
	if err := h.Release(s.ID); err != nil {
		t.Fatalf("release with nothing held: %v", err)
	}
	if head() != before+3 {
		t.Fatal("a release with nothing held committed something")
	}
}

// TestReleaseAndDeadline: Release commits what is held; records held with a deadline are
// committed on their own once it passes, with no append (a long tool's start becomes durable
// while it runs).
func TestReleaseAndDeadline(t *testing.T) {
	h := openTest(t, Options{})
	s, err := h.NewSession(NewSessionOptions{Name: "hold"})
	if err != nil {
		t.Fatal(err)
	}
	st, _ := h.State(s.ID)
	from := st.Head + 1
	h.Hold(s.ID, s.Branch, 0, note("a"))
	if err := h.Release(s.ID); err != nil {
		t.Fatal(err)
	}
	if got := texts(t, h, s.ID, from); fmt.Sprint(got) != "[a]" {
		t.Fatalf("after release: %v", got)
	}
	h.Hold(s.ID, s.Branch, 30*time.Millisecond, note("long tool started"))
	waitFor(t, "the deadline's commit", func() bool { return len(texts(t, h, s.ID, from)) == 2 })
	if got := texts(t, h, s.ID, from); fmt.Sprint(got) != "[a long tool started]" {
		t.Fatalf("after the deadline: %v", got)
	}
	if err := h.Release(s.ID); err != nil {
		t.Fatal(err)
	}
}

// TestHeldOnAMovedBranch: records held on a branch the session was rewound away from are
// refused (as an append on that branch is), the next append without a branch lands on the
// session's new branch anyway, and Release reports the refusal.
func TestHeldOnAMovedBranch(t *testing.T) {
	h := openTest(t, Options{})
	s, err := h.NewSession(NewSessionOptions{Name: "hold"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Append(s.ID, note("one"), note("two")); err != nil {
		t.Fatal(err)
	}
	st, _ := h.State(s.ID)
	old := s.Branch
	h.Hold(s.ID, old, 0, note("held on the old branch"))
	moved, err := h.Rewind(s.ID, st.Head-1)
	if err != nil {
		t.Fatal(err)
	}
	if moved.Branch == old {
		t.Fatal("the rewind kept the branch")
	}
	if _, err := h.Append(s.ID, note("after the rewind")); err != nil {
		t.Fatalf("an append to the current branch failed for held records of the old one: %v", err)
	}
	all := strings.Join(texts(t, h, s.ID, 1), "|")
	if strings.Contains(all, "held on the old branch") || !strings.Contains(all, "after the rewind") {
		t.Fatalf("the session's history: %s", all)
	}
	if err := h.Release(s.ID); !errors.Is(err, ErrBranchMoved) {
		t.Fatalf("release after the refusal: %v, want ErrBranchMoved", err)
	}
	if err := h.Release(s.ID); err != nil {
		t.Fatalf("the refusal is reported once: %v", err)
	}
}

// TestHeldRecordsAreRedacted: a held record carrying a sealed secret's value is redacted when
// committed, as any append is.
func TestHeldRecordsAreRedacted(t *testing.T) {
	h := openTest(t, Options{})
	s, err := h.NewSession(NewSessionOptions{Name: "hold"})
	if err != nil {
		t.Fatal(err)
	}
	const secret = "sk-held-9Xq2-sealed-value"
	if err := h.SetSecret("tok", []byte(secret)); err != nil {
		t.Fatal(err)
	}
	h.Hold(s.ID, s.Branch, 0, note("echo "+secret))
	if err := h.Release(s.ID); err != nil {
		t.Fatal(err)
	}
	evs, err := h.Events(s.ID, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if strings.Contains(string(e.Data), secret) {
			t.Fatalf("event %d holds the secret: %s", e.Seq, e.Data)
		}
	}
	if got := texts(t, h, s.ID, 1); len(got) != 1 || !strings.Contains(got[0], "‹secret:tok›") {
		t.Fatalf("recorded %v", got)
	}
}

// TestHoldKeepsOrderUnderConcurrency: writers that each hold a start and then append its end,
// while others append and release at once, never see an end before its start, nor lose one.
func TestHoldKeepsOrderUnderConcurrency(t *testing.T) {
	h := openTest(t, Options{NoSync: true})
	s, err := h.NewSession(NewSessionOptions{Name: "hold"})
	if err != nil {
		t.Fatal(err)
	}
	st, _ := h.State(s.ID)
	from := st.Head + 1
	const writers, each = 6, 40
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				h.Hold(s.ID, s.Branch, time.Millisecond, note(fmt.Sprintf("start %d/%d", w, i)))
				var err error
				if i%3 == 0 {
					err = h.Release(s.ID)
				}
				if err == nil {
					_, err = h.AppendOn(s.ID, s.Branch, note(fmt.Sprintf("end %d/%d", w, i)))
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	if err := h.Release(s.ID); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, x := range texts(t, h, s.ID, from) {
		if id, ok := strings.CutPrefix(x, "end "); ok && !seen["start "+id] {
			t.Fatalf("%q before its start", x)
		}
		seen[x] = true
	}
	if len(seen) != 2*writers*each {
		t.Fatalf("%d events, want %d", len(seen), 2*writers*each)
	}
}
