package eventlog

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"exo/harness/api"
)

// A reader that falls far behind a fast stream still gets every streamed character, in order,
// and the turn's end: what it was too slow to take one by one arrives merged.
func TestBrokerSlowReaderLosesNoStreamedText(t *testing.T) {
	var b broker
	ch := b.subscribe(4, false, "")
	defer b.unsubscribe(ch)
	const n = 200_000
	go func() {
		for i := 0; i < n; i++ {
			b.publish(api.Notice{Session: "s", Delta: string(rune('a' + i%26))})
			if i%50_000 == 0 {
				b.publish(api.Notice{Session: "s", Events: []api.Event{{Seq: uint64(i/50_000 + 1)}}})
			}
		}
		b.publish(api.Notice{Session: "s", Turn: &api.TurnNotice{ID: "t1"}})
	}()
	var got strings.Builder
	var seqs []uint64
	notices := 0
	for m := range ch {
		notices++
		if m.Lagged {
			t.Fatal("a slow reader was told it lagged, below the queue's limit")
		}
		if m.Delta != "" && len(m.Events) > 0 {
			t.Fatal("streamed text and events were merged into one notice (their order would be lost)")
		}
		got.WriteString(m.Delta)
		for _, e := range m.Events {
			seqs = append(seqs, e.Seq)
		}
		if m.Turn != nil {
			break
		}
		if notices%100 == 0 {
			time.Sleep(time.Millisecond) // a slow terminal
		}
	}
	s := got.String()
	if len(s) != n {
		t.Fatalf("got %d of %d characters", len(s), n)
	}
	for i := 0; i < n; i++ {
		if s[i] != byte('a'+i%26) {
			t.Fatalf("character %d out of order", i)
		}
	}
	if len(seqs) != 4 || seqs[0] != 1 || seqs[3] != 4 {
		t.Fatalf("events %v", seqs)
	}
	if notices >= n {
		t.Fatalf("%d notices for %d deltas: nothing was merged", notices, n)
	}
}

// A reader that does not read at all costs at most the queue's limit; it is told it lagged
// when it reads again, and turn notices are never dropped.
func TestBrokerStalledReaderIsBoundedAndToldItLagged(t *testing.T) {
	var b broker
	ch := b.subscribe(1, false, "")
	defer b.unsubscribe(ch)
	piece := strings.Repeat("x", 1<<20)
	for i := 0; i < maxQueuedBytes>>20+16; i++ {
		b.publish(api.Notice{Session: "s", Output: []byte(piece)})
	}
	b.publish(api.Notice{Session: "s", Turn: &api.TurnNotice{ID: "t1"}})
	b.publish(api.Notice{Session: "s", Delta: "dropped"})
	var s *subscriber
	b.mu.Lock()
	s = b.subs[ch]
	b.mu.Unlock()
	s.mu.Lock()
	queued := s.bytes
	s.mu.Unlock()
	if queued > maxQueuedBytes {
		t.Fatalf("%d bytes queued for a stalled reader (limit %d)", queued, maxQueuedBytes)
	}
	timeout := time.After(10 * time.Second)
	for sawTurn := false; !sawTurn; {
		select {
		case m := <-ch:
			sawTurn = m.Turn != nil
		case <-timeout:
			t.Fatal("the turn notice was dropped")
		}
	}
	b.publish(api.Notice{Session: "s", Delta: "later"})
	select {
	case m := <-ch:
		if m.Delta != "later" || !m.Lagged {
			t.Fatalf("after the gap: %q lagged=%v", m.Delta, m.Lagged)
		}
	case <-timeout:
		t.Fatal("nothing after the gap")
	}
}

// Unsubscribing closes the channel even when the reader stopped reading mid-stream.
func TestBrokerUnsubscribeClosesAStalledSubscription(t *testing.T) {
	var b broker
	ch := b.subscribe(1, false, "")
	for i := 0; i < 100; i++ {
		b.publish(api.Notice{Session: "s", Delta: "x"})
	}
	b.unsubscribe(ch)
	deadline := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the channel was not closed")
		}
	}
}

// BenchmarkBrokerMerge publishes one-character deltas to a subscriber that reads none of them
// (a client on a loaded machine): they merge in its queue, at a cost per delta that does not
// grow with the text queued (60 / 220 ns per delta at 10k / 160k under load; merging by string
// concatenation cost 3.3 µs / 259 µs: 41 s for a 160k-delta answer).
func BenchmarkBrokerMerge(b *testing.B) {
	for _, n := range []int{10_000, 160_000} {
		b.Run(fmt.Sprintf("deltas=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var br broker
				ch := br.subscribe(1, false, "")
				for d := 0; d < n; d++ {
					br.publish(api.Notice{Session: "s", Delta: "x"})
				}
				br.unsubscribe(ch)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/delta")
		})
	}
}

// TestChangesSubscriberSkipsStreamedText: a follower of changes only gets committed events and
// turn notices, never a stream's text, and the stream's other subscribers get all of it.
func TestChangesSubscriberSkipsStreamedText(t *testing.T) {
	var b broker
	all, changes := b.subscribe(64, false, ""), b.subscribe(64, true, "")
	b.publish(api.Notice{Session: "s", Delta: "a"})
	b.publish(api.Notice{Session: "s", Reasoning: "r"})
	b.publish(api.Notice{Session: "s", Output: []byte("o")})
	b.publish(api.Notice{Session: "s", Events: []api.Event{{Seq: 1}}})
	b.publish(api.Notice{Session: "s", Turn: &api.TurnNotice{ID: "t"}})
	got := <-changes
	if len(got.Events) != 1 || got.Delta != "" {
		t.Fatalf("first change %+v, want the events", got)
	}
	if got = <-changes; got.Turn == nil {
		t.Fatalf("second change %+v, want the turn", got)
	}
	n := 0
	for n < 5 {
		select {
		case <-all:
			n++
		case <-time.After(2 * time.Second):
			t.Fatalf("the full subscriber got %d of 5 notices", n)
		}
	}
	b.close()
}

// TestLateSubscriberGetsTheAnswerSoFar: a subscriber to a session that comes while an answer
// streams gets its reasoning and text so far first, then every piece published after, each
// once, in order, even while pieces are published concurrently; once the answer is recorded,
// or a new call starts, a new subscriber gets nothing of it; another session's answer is not
// replayed.
func TestLateSubscriberGetsTheAnswerSoFar(t *testing.T) {
	var b broker
	b.publish(api.Notice{Session: "s", Events: []api.Event{{Seq: 5, Type: api.TypeModelRequested}}})
	b.publish(api.Notice{Session: "s", Reasoning: "pondering "})
	b.publish(api.Notice{Session: "s", Delta: "The quick "})
	b.publish(api.Notice{Session: "other", Delta: "not this"})
	const n = 20_000
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < n; i++ {
			b.publish(api.Notice{Session: "s", Delta: string(rune('a' + i%26))})
		}
	}()
	ch := b.subscribe(8, false, "s")
	<-done
	b.publish(api.Notice{Session: "s", Events: []api.Event{{Seq: 6, Type: api.TypeModelCompleted}}})
	var reasoning, text strings.Builder
	for m := range ch {
		if m.Session != "s" {
			t.Fatalf("another session's notice: %+v", m)
		}
		reasoning.WriteString(m.Reasoning)
		text.WriteString(m.Delta)
		if len(m.Events) > 0 {
			break
		}
	}
	b.unsubscribe(ch)
	var want strings.Builder
	want.WriteString("The quick ")
	for i := 0; i < n; i++ {
		want.WriteRune(rune('a' + i%26))
	}
	if reasoning.String() != "pondering " || text.String() != want.String() {
		t.Fatalf("late subscriber got reasoning %q and %d bytes of text (want %d, the answer from its start, each piece once)",
			reasoning.String(), text.Len(), want.Len())
	}
	after := b.subscribe(8, false, "s")
	defer b.unsubscribe(after)
	b.publish(api.Notice{Session: "s", Turn: &api.TurnNotice{ID: "t"}})
	if m := <-after; m.Delta != "" || m.Reasoning != "" || m.Turn == nil {
		t.Fatalf("an answer already recorded was replayed: %+v", m)
	}
	if b.answers["other"] == nil || len(b.answers) != 1 {
		t.Fatalf("answers kept: %v", b.answers)
	}
}

// TestReplayToAWatchThatTurnsToASession: a watch of every session that turns to one mid-answer
// (the app attaching) is sent that answer from its start, marked SoFar, after the pieces it had
// already been sent; a reader that replaces its text on SoFar and appends otherwise ends with
// the whole answer exactly once, while pieces are published concurrently.
func TestReplayToAWatchThatTurnsToASession(t *testing.T) {
	var b broker
	ch := b.subscribe(8, false, "")
	defer b.unsubscribe(ch)
	const n = 20_000
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < n; i++ {
			b.publish(api.Notice{Session: "s", Delta: string(rune('a' + i%26))})
			if i == n/2 {
				b.replayTo(ch, "s")
			}
		}
		b.publish(api.Notice{Session: "s", Events: []api.Event{{Seq: 2, Type: api.TypeModelCompleted}}})
	}()
	var text strings.Builder
	sofar := 0
	for m := range ch {
		if m.SoFar {
			sofar++
			text.Reset()
		}
		text.WriteString(m.Delta)
		if len(m.Events) > 0 {
			break
		}
	}
	<-done
	var want strings.Builder
	for i := 0; i < n; i++ {
		want.WriteRune(rune('a' + i%26))
	}
	if sofar != 1 || text.String() != want.String() {
		t.Fatalf("%d SoFar notices, %d bytes of text, want 1 and the %d of the answer once", sofar, text.Len(), want.Len())
	}
}
