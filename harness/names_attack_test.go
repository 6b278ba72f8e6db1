package harness

import (
	"strings"
	"testing"

	"exo/harness/sessions"
)

// TestNamesWithEscapesRefused tries the names a hostile agent plants through exo mcp serve's
// new_session or a fork (exo sessions, exo log and exo run printed them raw: an OSC 52 name
// filled the terminal's clipboard, another retitled the pane): each is refused, saying what a
// name may hold, and no session is made.
func TestNamesWithEscapesRefused(t *testing.T) {
	h := openTest(t, Options{})
	ws := t.TempDir()
	bad := []string{
		"\x1b]52;c;aGVsbG8=\x07", "x\x1b]0;owned\x07", "red\x1b[31m", "bell\a", "nul\x00x", "del\x7f",
		"csi\u009b31m", "line\nbreak", "tab\tx", "space x", "at@x", "a/b", "rtl\u202eexe.txt",
		"zero\u200bwidth", "\xff\xfe", strings.Repeat("a", sessions.MaxNameLen+1), "",
	}
	for _, name := range bad {
		if name == "" {
			continue // an empty name gets a generated one
		}
		_, err := h.NewSession(NewSessionOptions{Name: name, Workspace: ws})
		if err == nil || !strings.Contains(err.Error(), "letters, digits") {
			t.Errorf("NewSession(%q): %v, want refused", name, err)
		}
	}
	s, err := h.NewSession(NewSessionOptions{Name: "ok-name_1.2", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.NewSession(NewSessionOptions{Name: "café-ünïcode", Workspace: ws}); err != nil {
		t.Errorf("a name of letters in other scripts: %v", err)
	}
	for _, name := range bad[:5] {
		if _, err := h.Fork(s.ID, 0, ForkOptions{Name: name}); err == nil {
			t.Errorf("Fork named %q was made", name)
		}
	}
	all, err := h.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range all {
		if strings.ContainsFunc(x.Name, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }) {
			t.Errorf("a session named %q exists", x.Name)
		}
	}
	for _, name := range []string{"gpt\x1b]0;x\x07", "m\n", "a b"} {
		if _, err := h.RegisterModel(ModelSpec{Name: name, Provider: "scripted"}); err == nil {
			t.Errorf("model %q registered", name)
		}
	}
	if _, err := h.RegisterModel(ModelSpec{Name: "qwen2.5:7b", Provider: "scripted"}); err != nil {
		t.Errorf("a model id with a colon: %v", err)
	}
}
