package views

import (
	"fmt"
	"testing"

	"exo/themes"
)

// BenchmarkMentionKeystroke types one more letter of an @ mention and renders the popup, as the
// app does on each key (its check of the popup and the view ask for the matches too), over
// listings of 2,000 and 20,000 paths (the most the harness lists).
func BenchmarkMentionKeystroke(b *testing.B) {
	for _, n := range []int{2_000, 20_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			files := make([]string, 0, n)
			for i := range n {
				files = append(files, fmt.Sprintf("pkg%03d/sub%02d/file_%05d.go", i/200, i/20%10, i))
			}
			in := NewInput(NewCommon(themes.Dark()))
			in.Focus()
			in.SetFiles(files)
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				in.SetValue("explain @fil")
				_ = in.PopupView(60) // the previous key's view
				b.StartTimer()
				in.Update(press("e"))
				_ = in.MentionMatches()
				_ = in.PopupView(60)
			}
		})
	}
}
