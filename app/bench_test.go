package app

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"exo/harness"
	"exo/harness/service"
	"exo/store"
)

// benchTurn is one turn of a long session.
func benchTurn(i int) []store.Record {
	code := 0
	id := fmt.Sprint("c", i)
	return []store.Record{
		harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser, harness.InvocationReceived{Text: fmt.Sprintf("prompt %d", i)}),
		harness.MustRecord(harness.TypeModelCompleted, "executor:default", harness.ModelCompleted{Text: "Looking.", ToolCalls: []harness.ToolCall{{ID: id, Name: "bash", Arguments: []byte(`{"command":"ls"}`)}}}),
		harness.MustRecord(harness.TypeToolStarted, "tool:bash", harness.ToolStarted{CallID: id, Tool: "bash", Summary: "ls"}),
		harness.MustRecord(harness.TypeToolCompleted, "tool:bash", harness.ToolCompleted{CallID: id, Tool: "bash", Output: "main.go\nREADME.md", ExitCode: &code}),
		harness.MustRecord(harness.TypeModelCompleted, "executor:default", harness.ModelCompleted{Text: fmt.Sprintf("**Answer %d**: rebuild the prompt view incrementally.", i)}),
	}
}

// BenchmarkOpenFirstFrame opens a 100k-event session in a fresh harness process state (cold
// caches: checkpoint plus tail) and renders the app's first frame at 160×48.
func BenchmarkOpenFirstFrame(b *testing.B) {
	home := b.TempDir()
	h, err := harness.Open(home, harness.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	s, _ := h.NewSession(harness.NewSessionOptions{Name: "big"})
	h.State(s.ID)
	for i := 0; i < 20_000; i++ {
		if _, err := h.Append(s.ID, benchTurn(i)...); err != nil {
			b.Fatal(err)
		}
	}
	h.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h, err := harness.Open(home, harness.Options{NoSync: true})
		if err != nil {
			b.Fatal(err)
		}
		svc := service.New(h, service.Options{})
		m := New(svc, Options{Session: s.ID, Theme: "dark"})
		m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
		m.Update(m.attachCmd()())
		m.Update(m.siblingsCmd()())
		if frame := m.render(); len(frame) == 0 {
			b.Fatal("empty frame")
		}
		b.StopTimer()
		svc.Close()
		h.Close()
		b.StartTimer()
	}
}

// BenchmarkKeystrokeWhileStreaming measures, in the root model, the time from a key press to the
// rendered frame that shows it while an answer streams in (one delta between keystrokes, as at
// 200 tokens/s with a 60 Hz frame); it reports the median and p99.
func BenchmarkKeystrokeWhileStreaming(b *testing.B) {
	h, err := harness.Open(b.TempDir(), harness.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	s, _ := h.NewSession(harness.NewSessionOptions{Name: "typing"})
	for i := 0; i < 50; i++ {
		h.Append(s.ID, benchTurn(i)...)
	}
	svc := service.New(h, service.Options{})
	defer svc.Close()
	m := New(svc, Options{Session: s.ID, Theme: "dark"})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	m.Update(m.attachCmd()())
	lat := make([]float64, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.onNotices([]harness.Notice{{Session: s.ID, Delta: fmt.Sprintf("word%d **bold** and `code` ", i)}})
		m.render()
		t0 := nowNano()
		m.Update(tea.KeyPressMsg{Code: 'a' + rune(i%26), Text: string(rune('a' + i%26))})
		m.render()
		lat = append(lat, float64(nowNano()-t0)/1e6)
		if i%40 == 39 {
			m.input.Reset()
		}
	}
	b.StopTimer()
	med, p99 := percentiles(lat)
	b.ReportMetric(med, "median-ms")
	b.ReportMetric(p99, "p99-ms")
}
