package app

import (
	"fmt"
	"strings"
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

// BenchmarkAnswerFrames measures the CPU one streamed answer costs the root model at the rig's
// 160×45: the rig's answer (one 40k-character paragraph) and a 40k-character markdown answer
// (headings, paragraphs with inline markup, code blocks, tables, lists), arriving as the daemon
// sends it (text coalesced per notice) in 100 batches, each folded in and drawn as a frame. One
// op is one answer.
func BenchmarkAnswerFrames(b *testing.B) {
	h, err := harness.Open(b.TempDir(), harness.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	s, _ := h.NewSession(harness.NewSessionOptions{Name: "answer"})
	for i := 0; i < 20; i++ {
		h.Append(s.ID, benchTurn(i)...)
	}
	svc := service.New(h, service.Options{})
	defer svc.Close()
	for _, a := range []struct{ name, text string }{
		{"plain", strings.Repeat("abcdefghi ", 4000)},
		{"markdown", benchMarkdown(40_000)},
	} {
		b.Run(a.name, func(b *testing.B) {
			m := New(svc, Options{Session: s.ID, Theme: "dark"})
			m.Update(tea.WindowSizeMsg{Width: 160, Height: 45})
			m.Update(m.attachCmd()())
			per := len(a.text) / 100
			cpu0 := cpuTime()
			for b.Loop() {
				m.conv.ReplaceStream("", "")
				for i := 0; i < len(a.text); i += per {
					m.onNotices([]harness.Notice{{Session: s.ID, Delta: a.text[i:min(i+per, len(a.text))]}})
					_ = m.View()
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/answer")
		})
	}
}

// benchMarkdown is an answer of about n characters as models write them.
func benchMarkdown(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, "## Part %d\n\n", i)
		case 1:
			for j := range 12 {
				fmt.Fprintf(&b, "The log is the only source of truth (step %d), so a **crash** loses nothing and `fork` is cheap. ", j)
			}
			b.WriteString("\n\n")
		case 2:
			b.WriteString("```go\n")
			for j := range 14 {
				fmt.Fprintf(&b, "func f%d(x int) int { return x * %d }\n", j, j)
			}
			b.WriteString("```\n\n")
		case 3:
			b.WriteString("| measure | before | after |\n|---|---|---|\n")
			for j := range 6 {
				fmt.Fprintf(&b, "| row %d | %d ms | %d ms |\n", j, 300+j, 20+j)
			}
			b.WriteString("\n")
		default:
			for j := range 6 {
				fmt.Fprintf(&b, "- item %d of the list, with a few words after it\n", j)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}
