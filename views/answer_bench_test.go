package views

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"exo/themes"
)

// answerFrames is how many frames an answer is drawn in by the answer
// benchmarks: a 40k-delta answer streams for about 1.5 s, drawn at 30 to 60
// frames a second.
const answerFrames = 100

// plainAnswer is the rig's answer (shared/bench/rig multi.py): one paragraph
// of n characters ending in a marker.
func plainAnswer(n int) string {
	end := fmt.Sprintf("ENDMARK%dX", n)
	body := strings.Repeat("abcdefghi ", n/10+1)[:n-len(end)-1]
	return body + " " + end
}

// markdownAnswer is an answer of about n characters as models write them:
// paragraphs with inline markup, headings, lists, code blocks and tables.
func markdownAnswer(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		switch i % 6 {
		case 0:
			fmt.Fprintf(&b, "## Part %d\n\n", i)
		case 1:
			for j := range 12 {
				fmt.Fprintf(&b, "The harness keeps the event log as the only source of truth (step %d), so a **crash** loses nothing and `fork` is cheap. ", j)
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
		case 4:
			for j := range 6 {
				fmt.Fprintf(&b, "- item %d of the list, with a few words after it\n", j)
			}
			b.WriteString("\n")
		default:
			b.WriteString(strings.Repeat("A long plain paragraph that goes on and on without any markup at all. ", 20) + "\n\n")
		}
	}
	return b.String()
}

// proseAnswer is an answer of about n characters of prose without markup:
// paragraphs of sentences with commas, parentheses, colons and questions.
func proseAnswer(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		for j := range 8 {
			fmt.Fprintf(&b, "Step %d of part %d keeps the log as it was (nothing is lost), so a fork is cheap: why? Because every event is kept! ", j, i)
		}
		b.WriteString("\n\n")
	}
	return b.String()
}

// BenchmarkStreamAnswer measures the CPU one whole answer of one-character
// deltas costs the conversation pane (160×45, the rig's terminal): every
// delta appended, a frame drawn every len/answerFrames deltas. One op is one
// answer.
func BenchmarkStreamAnswer(b *testing.B) {
	for _, a := range []struct {
		name, text string
	}{{"plain", plainAnswer(40_000)}, {"markdown", markdownAnswer(40_000)}, {"prose", proseAnswer(40_000)}} {
		b.Run(a.name, func(b *testing.B) {
			c := NewConversation(NewCommon(themes.Dark()))
			c.SetSize(160, 43)
			every := len(a.text) / answerFrames
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				c.SetItems([]ConvItem{{Kind: KindUser, Text: "explain"}})
				for i := range len(a.text) {
					c.AppendDelta(a.text[i : i+1])
					if i%every == every-1 {
						_ = c.View()
					}
				}
				c.FinishStream()
				_ = c.View()
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/answer")
		})
	}
}

// cpuTime is the process's user and system CPU time so far (the collector's
// threads included).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
