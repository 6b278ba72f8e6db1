package executor

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"

	"exo/harness"
	"exo/harness/provider/providertest"
)

// bigOutput is a tool output worth pruning (a few hundred tokens).
var bigOutput = strings.Repeat("worker 3 finished job 1234 in 567 ms\n", 12)

// compactedHistory appends turns to a session, with a prune every 10 turns and a summary every
// 500, as the executor would record them; it returns the number of events.
func compactedHistory(tb testing.TB, h *harness.Harness, id string, events int) {
	var turns []uint64 // invocation seqs
	var prunedTo uint64
	a := harness.ExecutorActor("default")
	for i := 0; ; i++ {
		recs := benchTurn(i)
		p, _ := harness.Decode(harness.Event{Type: recs[3].Type, Data: recs[3].Data})
		tc := p.(*harness.ToolCompleted)
		tc.Output = bigOutput
		recs[3] = harness.MustRecord(harness.TypeToolCompleted, harness.ToolActor("bash"), tc)
		evs, err := h.Append(id, recs...)
		if err != nil {
			tb.Fatal(err)
		}
		turns = append(turns, evs[0].Seq)
		if evs[len(evs)-1].Seq >= uint64(events) {
			return
		}
		if n := len(turns); n > 2 && i%10 == 9 {
			to := turns[n-2] - 1
			kind, summary := CompactPrune, ""
			if i%500 == 499 {
				kind, summary = CompactSummarize, fmt.Sprintf("summary of turns up to %d: the slow path was made faster step by step.", i)
			}
			if _, err := h.Append(id, harness.MustRecord(harness.TypeCompactionApplied, a, harness.CompactionApplied{Kind: kind, FromSeq: prunedTo + 1, ToSeq: to, Summary: summary})); err != nil {
				tb.Fatal(err)
			}
			prunedTo = to
		}
	}
}

// BenchmarkPromptViewCompacted is BenchmarkPromptView over a history with compactions (a prune
// every 10 turns, a summary every 500): bringing the view up to date after one new event.
func BenchmarkPromptViewCompacted(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("history=%d", n), func(b *testing.B) {
			h, err := harness.Open(b.TempDir(), harness.Options{NoSync: true})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			s, _ := h.NewSession(harness.NewSessionOptions{Name: "bench"})
			compactedHistory(b, h, s.ID, n)
			x := New(h, Options{})
			v, err := x.ViewOf(s.Branch, "gpt-4.1")
			if err != nil {
				b.Fatal(err)
			}
			rec := harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser, harness.InvocationReceived{Text: "and one more thing"})
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				h.Append(s.ID, rec)
				b.StartTimer()
				v, err := x.ViewOf(s.Branch, "gpt-4.1")
				if err != nil || len(v.Messages) == 0 {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(v.Messages)), "messages")
			b.ReportMetric(float64(v.Tokens), "view-tokens")
		})
	}
}

// BenchmarkSessionsMemory holds 20 sessions of 10k events each in one process, brings their
// prompt views and projections up to date and runs one turn on each concurrently against a
// local zero-latency model server, then reports the process's resident memory (VmRSS) and the
// Go heap in use. Target: ≤ 300 MB RSS.
func BenchmarkSessionsMemory(b *testing.B) {
	const sessions, events = 20, 10_000
	for i := 0; i < b.N; i++ {
		srv := providertest.NewChatServer(20, "ok ")
		home := b.TempDir()
		ids := writeSessions(b, home, srv.BaseURL(), sessions, events)
		// Start from a fresh harness, as a process opening these sessions would.
		debug.FreeOSMemory()
		h, err := harness.Open(home, harness.Options{NoSync: true})
		if err != nil {
			b.Fatal(err)
		}
		x := New(h, Options{Headless: true})
		var wg sync.WaitGroup
		errs := make(chan error, sessions)
		for _, id := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := x.Prompt(context.Background(), id, "one more", "bench")
				if err == nil && res.Failure != "" {
					err = fmt.Errorf("%s", res.Failure)
				}
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		debug.FreeOSMemory()
		b.ReportMetric(float64(procStatus("VmRSS:"))/(1<<20), "rss-MB")
		b.ReportMetric(float64(procStatus("RssAnon:"))/(1<<20), "rss-anon-MB")
		b.ReportMetric(float64(procStatus("RssFile:"))/(1<<20), "rss-file-MB")
		b.ReportMetric(float64(heapInUse())/(1<<20), "heap-MB")
		h.Close()
		srv.Close()
	}
}

// writeSessions creates n sessions of events events each under home and closes the harness.
func writeSessions(b *testing.B, home, baseURL string, n, events int) []string {
	h, err := harness.Open(home, harness.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	h.RegisterModel(harness.ModelSpec{Name: "local", Provider: "openai-compatible", ModelID: "gpt-4.1", BaseURL: baseURL, ContextWindow: 1_000_000})
	var ids []string
	for k := 0; k < n; k++ {
		s, _ := h.NewSession(harness.NewSessionOptions{Name: fmt.Sprint("s", k)})
		for j := 0; j < events/5; j++ {
			if _, err := h.Append(s.ID, benchTurn(j)...); err != nil {
				b.Fatal(err)
			}
		}
		ids = append(ids, s.ID)
	}
	return ids
}

// procStatus reads a size field (kB) of /proc/self/status in bytes (0 where unavailable).
func procStatus(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// heapInUse reads the bytes of heap objects and unused spans from runtime/metrics.
func heapInUse() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
