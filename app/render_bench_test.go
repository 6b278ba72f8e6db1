package app

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"exo/harness"
	"exo/harness/service"
)

// frameWriter is a terminal that counts the frames written to it and says when one came.
type frameWriter struct {
	writes atomic.Int64
	bytes  atomic.Int64
	wrote  chan struct{}
}

func (w *frameWriter) Write(p []byte) (int, error) {
	w.writes.Add(1)
	w.bytes.Add(int64(len(p)))
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return len(p), nil
}

// BenchmarkAnswerRendered is BenchmarkAnswerFrames through the real program: the app runs in
// Bubble Tea (the patched renderer, 30 frames a second, the spinner ticking as while an answer
// streams) at 160×45, and each of an answer's 100 parts waits until its frame is written to the
// terminal, so cpu-ms/answer is what one app spends to show a 40k-character answer in 100
// frames: its View, the renderer's parse of each frame into cells and its comparison with the
// screen, and the bytes it writes.
func BenchmarkAnswerRendered(b *testing.B) {
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
			var cpu time.Duration
			var frames, written int64
			for b.Loop() {
				w := &frameWriter{wrote: make(chan struct{}, 1)}
				m := New(svc, Options{Session: s.ID, Theme: "dark"})
				p := tea.NewProgram(m, tea.WithInput(nil), tea.WithOutput(w), tea.WithWindowSize(160, 45),
					tea.WithoutSignals(), tea.WithFPS(frameRate))
				done := make(chan error, 1)
				go func() { _, err := p.Run(); done <- err }()
				settleFrames(w)
				f0, b0 := w.writes.Load(), w.bytes.Load()
				cpu0 := cpuTime()
				per := len(a.text) / 100
				for i := 0; i < len(a.text); i += per {
					p.Send(noticesMsg{[]harness.Notice{{Session: s.ID, Delta: a.text[i:min(i+per, len(a.text))]}}})
					select {
					case <-w.wrote:
					case <-time.After(2 * time.Second):
						b.Fatalf("part %d drew no frame", i/per)
					}
				}
				cpu += cpuTime() - cpu0
				frames += w.writes.Load() - f0
				written += w.bytes.Load() - b0
				p.Kill()
				<-done
				m.closeWatch()
			}
			n := float64(b.N)
			b.ReportMetric(float64(cpu.Microseconds())/1000/n, "cpu-ms/answer")
			b.ReportMetric(float64(frames)/n, "frames/answer")
			b.ReportMetric(float64(written)/1024/n, "KiB/answer")
		})
	}
}

// settleFrames waits until the program has drawn its first frames and written nothing for 300 ms.
func settleFrames(w *frameWriter) {
	for {
		select {
		case <-w.wrote:
		case <-time.After(300 * time.Millisecond):
			return
		}
	}
}
