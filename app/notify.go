package app

import (
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Notification styles, chosen with EXO_NOTIFY (a comma-separated list; "off" for none).
const (
	notifyBell   = "bell"   // notifyBell rings the terminal bell.
	notifyOSC9   = "osc9"   // notifyOSC9 is iTerm2's, WezTerm's, Ghostty's and Windows Terminal's desktop notification.
	notifyOSC777 = "osc777" // notifyOSC777 is urxvt's, foot's and VTE's (GNOME Terminal, Tilix) notification.
)

// defaultNotify is the notification style when EXO_NOTIFY is unset: the bell, which every
// terminal has, and OSC 9, which most current ones turn into a desktop notification (OSC 777 is
// left out by default: terminals that know both would show two).
const defaultNotify = notifyBell + "," + notifyOSC9

// notifyStyles reads EXO_NOTIFY once (when the app starts), else the configuration's list.
func notifyStyles(configured string) map[string]bool {
	v := strings.TrimSpace(os.Getenv("EXO_NOTIFY"))
	if v == "" {
		v = strings.TrimSpace(configured)
	}
	if v == "" {
		v = defaultNotify
	}
	out := map[string]bool{}
	for _, s := range strings.Split(v, ",") {
		out[strings.ToLower(strings.TrimSpace(s))] = true
	}
	if out["off"] || out["none"] {
		return map[string]bool{}
	}
	return out
}

// notify tells the user something happened while the terminal is not focused (a turn ended, an
// approval waits): a bell and a desktop notification, as EXO_NOTIFY says. It does nothing while
// the terminal has focus, or when the terminal never reported focus at all.
func (m *Model) notify(text string) tea.Cmd {
	if !m.blurred || len(m.notifyWith) == 0 {
		return nil
	}
	text = notifyText(text)
	var seq strings.Builder
	if m.notifyWith[notifyOSC9] {
		seq.WriteString("\x1b]9;exo: " + text + "\x07")
	}
	if m.notifyWith[notifyOSC777] {
		seq.WriteString("\x1b]777;notify;exo;" + text + "\x07")
	}
	if m.notifyWith[notifyBell] {
		seq.WriteString("\a")
	}
	if seq.Len() == 0 {
		return nil
	}
	return tea.Raw(seq.String())
}

// notifyText makes text safe inside an OSC string: one line, no control characters or
// semicolons (OSC 777 separates its fields with them), at most 120 cells.
func notifyText(text string) string {
	text = ansi.Strip(text)
	text = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == ';' || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, text)
	text = strings.Join(strings.Fields(text), " ")
	if r := []rune(text); len(r) > 120 {
		text = string(r[:119]) + "…"
	}
	return text
}
