package app

import (
	"strings"
	"testing"
)

// TestSlashSeqsAreChecked: /rewind past the head is refused before anything is asked (it opened
// a confirmation of "0 events" that failed only after y), and a word where an event number
// belongs says so instead of quoting strconv.
func TestSlashSeqsAreChecked(t *testing.T) {
	m := newTestModel(t)
	for _, c := range []struct{ name, args, want string }{
		{"rewind", "999", "seq 999 is past the head"},
		{"fork", "999", "seq 999 is past the head"},
		{"fork", "abc", `"abc" is not an event number`},
		{"rewind", "x1", "give the event number"},
	} {
		m.info.Message = ""
		if cmd := m.slash(c.name, c.args); m.info.Message == "" {
			m.Update(cmd()) // the harness's answer; a message said at once needs no run
		}
		if m.overlay != nil {
			t.Fatalf("/%s %s opened a dialog", c.name, c.args)
		}
		if !strings.Contains(m.info.Message, c.want) || !m.info.MessageErr || strings.Contains(m.info.Message, "strconv") {
			t.Fatalf("/%s %s says %q, want an error with %q", c.name, c.args, m.info.Message, c.want)
		}
	}
}
