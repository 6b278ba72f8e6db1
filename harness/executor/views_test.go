package executor

import (
	"context"
	"reflect"
	"strconv"
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
