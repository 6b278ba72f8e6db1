package views

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// StoreBanner is the line the app shows across the top of the screen while the daemon's shared
// store (etcd) does not answer: since when, what that means for turns, and why (cut to the
// width). The app drops it once the daemon says the store answers again.
func StoreBanner(c *Common, width int, since time.Time, why string) string {
	if width <= 0 {
		return ""
	}
	text := " the store is unreachable"
	if !since.IsZero() {
		text += " since " + since.Local().Format(time.TimeOnly)
	}
	text += ": turns fail until it answers; exo doctor says what it reaches "
	why = strings.TrimPrefix(strings.TrimSpace(Sanitize(why)), "the store is unreachable: ") // said already
	if why != "" {
		text += fmt.Sprintf("· %s ", strings.ReplaceAll(why, "\n", " "))
	}
	if w := ansi.StringWidth(text); w > width {
		text = ansi.Truncate(text, width-1, "") + "…"
	} else {
		text += strings.Repeat(" ", width-w)
	}
	return c.Styles.Conv.Preview.Render(text)
}
