package views

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"exo/themes"
)

// BenchmarkTimelineView measures one frame of a 60×40 timeline scrolled to
// the middle of n events.
func BenchmarkTimelineView(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			tl := NewTimeline(NewCommon(themes.Dark()))
			tl.SetSize(60, 40)
			tl.SetSource(sampleRows(n))
			tl.move(-n / 2)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				tl.move(1 - 2*(i%2))
				_ = tl.View()
			}
		})
	}
}

// benchItems builds n conversation items cycling through every kind.
func benchItems(n int) []ConvItem {
	kinds := sampleConversation()
	kinds[len(kinds)-1].Status = ToolOK
	items := make([]ConvItem, n)
	for i := range items {
		items[i] = kinds[i%len(kinds)]
	}
	return items
}

// BenchmarkConversationView measures one frame of a 100×40 conversation
// pane showing the end of n items, after a one-line scroll (so the frame is
// recomposed), with items rendered once and cached as a real session would.
func BenchmarkConversationView(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			c := NewConversation(NewCommon(themes.Dark()))
			c.SetSize(100, 40)
			c.SetItems(benchItems(n))
			_ = c.View()
			c.Scroll(-n) // visit the top too: both ends warm
			_ = c.View()
			c.Scroll(-20)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.Scroll(1 - 2*(i%2))
				_ = c.View()
			}
		})
	}
}

// streamDeltas splits a long markdown answer into n small deltas.
func streamDeltas(n int) []string {
	words := strings.Fields("The harness keeps the event log as the only source of truth and every pane is a projection of it so a crash loses nothing")
	deltas := make([]string, 0, n)
	for i := 0; len(deltas) < n; i++ {
		d := words[i%len(words)] + " "
		switch {
		case i%60 == 59:
			d += "\n\n"
		case i%600 == 300:
			d = "\n\n## Section " + fmt.Sprint(i) + "\n\n"
		case i%450 == 200:
			d = "\n\n```go\nfunc f() int {\n\treturn 42\n}\n```\n\n"
		}
		deltas = append(deltas, d)
	}
	return deltas
}

// BenchmarkStreamRender measures the cost of one delta (append + frame) at
// delta 1k and 39k of a 40k-delta markdown answer.
func BenchmarkStreamRender(b *testing.B) {
	deltas := streamDeltas(40_000)
	for _, at := range []int{1_000, 39_000} {
		b.Run(fmt.Sprintf("delta=%d", at), func(b *testing.B) {
			c := NewConversation(NewCommon(themes.Dark()))
			c.SetSize(100, 40)
			c.Append(ConvItem{Kind: KindUser, Text: "explain"})
			for _, d := range deltas[:at] {
				c.AppendDelta(d)
			}
			_ = c.View()
			window := deltas[at : at+1000]
			runtime.GC()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%len(window) == 0 && i > 0 {
					b.StopTimer()
					c.SetItems(nil)
					c.Append(ConvItem{Kind: KindUser, Text: "explain"})
					for _, d := range deltas[:at] {
						c.AppendDelta(d)
					}
					_ = c.View()
					runtime.GC() // the refill's garbage is not the deltas' cost
					b.StartTimer()
				}
				c.AppendDelta(window[i%len(window)])
				_ = c.View()
			}
		})
	}
}

// BenchmarkOpenFirstFrame measures handing a pane 100k items or events and
// drawing its first frame.
func BenchmarkOpenFirstFrame(b *testing.B) {
	items, rows := benchItems(100_000), sampleRows(100_000)
	b.Run("conversation=100000", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			c := NewConversation(NewCommon(themes.Dark()))
			c.SetSize(100, 40)
			c.SetItems(items)
			_ = c.View()
		}
	})
	b.Run("timeline=100000", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			tl := NewTimeline(NewCommon(themes.Dark()))
			tl.SetSize(60, 40)
			tl.SetSource(rows)
			_ = tl.View()
		}
	})
}

// BenchmarkKeystrokeWhileStreaming measures one frame's pane work while an
// answer streams: a delta arrives, a key is typed, both panes redraw.
func BenchmarkKeystrokeWhileStreaming(b *testing.B) {
	deltas := streamDeltas(5_000)
	c := NewCommon(themes.Dark())
	conv, in := NewConversation(c), NewInput(c)
	conv.SetSize(100, 40)
	in.SetSize(160, 5)
	in.Focus()
	for _, d := range deltas[:2000] {
		conv.AppendDelta(d)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		conv.AppendDelta(deltas[2000+i%3000])
		in.Update(tea.KeyPressMsg{Code: 'a', Text: "a"})
		if i%50 == 49 {
			in.Reset()
		}
		_ = conv.View()
		_ = in.View()
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkPreviewScrub measures one scrub step of time travel: the
// timeline moves, the conversation gets the items as of the selected event
// and both redraw.
func BenchmarkPreviewScrub(b *testing.B) {
	items, rows := benchItems(1_000), sampleRows(1_000)
	c := NewCommon(themes.Dark())
	tl, conv := NewTimeline(c), NewConversation(c)
	tl.SetSize(60, 40)
	conv.SetSize(100, 40)
	tl.SetSource(rows)
	conv.SetItems(items)
	_ = conv.View()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tl.move(-1 + 2*((i/100)%2))
		r, _ := tl.Selected()
		conv.SetItems(items[:r.Seq])
		conv.SetPreview(r.Seq)
		_ = tl.View()
		_ = conv.View()
	}
}

// BenchmarkStreamCodeBlock measures the per-delta cost inside one long
// fenced code block, early (line 100) and late (line 1,900 of 2,000): code
// is kept in chunks, so the cost stays flat.
func BenchmarkStreamCodeBlock(b *testing.B) {
	deltas := []string{"Writing it out:\n\n```go\n"}
	for i := range 2000 {
		deltas = append(deltas, fmt.Sprintf("\tv%d := ", i), fmt.Sprintf("compute(%d)", i), " // step\n")
	}
	for _, line := range []int{100, 1900} {
		at := 1 + 3*line
		b.Run(fmt.Sprintf("line=%d", line), func(b *testing.B) {
			c := NewConversation(NewCommon(themes.Dark()))
			c.SetSize(100, 40)
			fill := func() {
				c.SetItems(nil)
				for _, d := range deltas[:at] {
					c.AppendDelta(d)
				}
				_ = c.View()
				runtime.GC()
			}
			fill()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%150 == 149 {
					b.StopTimer()
					fill()
					b.StartTimer()
				}
				c.AppendDelta(deltas[at+i%150])
				_ = c.View()
			}
		})
	}
}
