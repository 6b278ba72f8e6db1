package executor

import (
	"context"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"exo/harness"
)

// TestViewsKeptBounded: the executor keeps the prompt views of the maxViews branches used last,
// not of every branch it ever ran (a daemon's memory grew by each conversation); a view dropped
// and rebuilt from the log on its branch's next use is the same as the one dropped.
func TestViewsKeptBounded(t *testing.T) {
	h, s, _ := setup(t, "demo.yaml")
	x := New(h, Options{Headless: true})
	if _, err := x.Prompt(context.Background(), s.ID, "write hello", "test"); err != nil {
		t.Fatal(err)
	}
	first, err := x.ViewOf(s.Branch, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Messages) < 4 {
		t.Fatalf("the turn left %d messages in its view", len(first.Messages))
	}
	for i := 0; i < maxViews+6; i++ {
		o, err := h.NewSession(harness.NewSessionOptions{Name: "other-" + strconv.Itoa(i)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := x.ViewOf(o.Branch, "demo"); err != nil {
			t.Fatal(err)
		}
	}
	x.mu.Lock()
	n, kept := len(x.views), x.views[s.Branch] != nil
	x.mu.Unlock()
	if n > maxViews || kept {
		t.Fatalf("%d views kept (at most %d), the least recently used one kept: %v", n, maxViews, kept)
	}
	again, err := x.ViewOf(s.Branch, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if again == first || again.Head != first.Head || again.Tokens != first.Tokens || !reflect.DeepEqual(again.Messages, first.Messages) {
		t.Fatalf("the rebuilt view differs: head %d/%d, tokens %d/%d, %d/%d messages", again.Head, first.Head, again.Tokens, first.Tokens, len(again.Messages), len(first.Messages))
	}
	x.mu.Lock()
	n = len(x.views)
	x.mu.Unlock()
	if n > maxViews {
		t.Fatalf("%d views kept after the rebuild", n)
	}
}

// TestViewsKeptBoundedBySize: besides the view in use, the executor keeps views of at most
// maxViewTokens, and no lock of a branch nothing brings up to date. A daemon running one long
// answer per session kept 64 of them (the rig's 160k-character answers: 290 KB a session), and a
// lock for every branch it ever ran.
func TestViewsKeptBoundedBySize(t *testing.T) {
	t.Parallel()
	h, err := harness.Open(t.TempDir(), harness.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	x := New(h, Options{})
	long := strings.Repeat("abcdefghij", 16_000) // 40,000 tokens by the estimate
	var first *harness.Session
	for i := range 16 {
		s, err := h.NewSession(harness.NewSessionOptions{Name: "long-" + strconv.Itoa(i)})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = s
		}
		if _, err := h.Append(s.ID, harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser, harness.InvocationReceived{Text: long})); err != nil {
			t.Fatal(err)
		}
		v, err := x.ViewOf(s.Branch, "m")
		if err != nil || v.Tokens < len(long)/4 {
			t.Fatalf("view of session %d: %v, %d tokens", i, err, v.Tokens)
		}
	}
	x.mu.Lock()
	tokens, n, locks := 0, len(x.views), len(x.viewLocks)
	for _, v := range x.views {
		tokens += v.Tokens
	}
	x.mu.Unlock()
	if limit := 1<<17 + len(long)/4 + 1000; tokens > limit || locks != 0 {
		t.Fatalf("%d views of %d tokens kept (at most %d), %d branch locks", n, tokens, limit, locks)
	}
	// A dropped view comes back from the log whole.
	v, err := x.ViewOf(first.Branch, "m")
	if err != nil || len(v.Messages) != 1 || v.Messages[0].Text != long {
		t.Fatalf("the first session's view rebuilt: %v, %d messages", err, len(v.Messages))
	}
}
