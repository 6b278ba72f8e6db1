package views

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// TestStoreBannerGolden keeps the store-unreachable banner, as the app draws it over the top
// line of a 60×20 and a 200×60 screen, light and dark: cut to the width, the reason's control
// sequences removed.
func TestStoreBannerGolden(t *testing.T) {
	since := time.Date(2026, 11, 29, 2, 31, 5, 0, time.Local)
	why := "etcd read exo/v1/default/heads/s1: context deadline exceeded\x1b]0;evil title\x07"
	for theme, mk := range testThemes {
		for _, term := range [][2]int{{60, 20}, {200, 60}} {
			t.Run(fmt.Sprintf("%s/%dx%d", theme, term[0], term[1]), func(t *testing.T) {
				banner := StoreBanner(NewCommon(mk()), term[0], since, why)
				if strings.Contains(banner, "evil") && strings.Contains(banner, "\x1b]0;") {
					t.Fatal("the reason's escape sequence reached the screen")
				}
				lines := []string{banner}
				for len(lines) < term[1] {
					lines = append(lines, strings.Repeat(" ", term[0]))
				}
				view := strings.Join(lines, "\n")
				checkSize(t, view, term[0], term[1])
				checkMaxWidth(t, view, term[0], term[1])
				golden.RequireEqual(t, ansi.Strip(view))
			})
		}
	}
}

// TestStoreBannerNarrow: on any width the banner is exactly one line of that width.
func TestStoreBannerNarrow(t *testing.T) {
	c := NewCommon(nil)
	for w := 1; w <= 120; w++ {
		b := StoreBanner(c, w, time.Now(), strings.Repeat("why ", 40))
		if got := ansi.StringWidth(b); got != w || strings.Contains(b, "\n") {
			t.Fatalf("width %d: banner of width %d: %q", w, got, ansi.Strip(b))
		}
	}
	if StoreBanner(c, 0, time.Now(), "") != "" {
		t.Fatal("a banner on no width")
	}
}
