package conventions

import (
	"strings"
	"testing"
)

// TestCLIPrintsNoEscapeSequences plants escape sequences where an agent or another client can
// put text (a message in the log, a prompt, a model's answer, a command's output, a session
// name) and reads them back through every printing command: no escape sequence but SGR colours
// reaches the terminal (on the code before, an OSC 52 text filled the clipboard and another
// retitled the pane), and a name holding one is refused.
func TestCLIPrintsNoEscapeSequences(t *testing.T) {
	u := newUser(t)
	const osc52, title, csi = "\x1b]52;c;aGVsbG8=\x07", "\x1b]0;owned\x07", "\u009b2J"
	u.model("echo", "name: echo\nturns:\n  - text: \"answer \\e]52;c;aGk=\\a \\e]0;t\\a done\"\n")
	if _, errs, code := u.exo("", "new", "--name", "bad"+osc52); code == 0 || !strings.Contains(errs, "letters, digits") {
		t.Fatalf("a name with an escape sequence: exit %d: %q", code, errs)
	}
	id := strings.TrimSpace(u.must("new", "--name", "plain"))
	u.must("say", id, "hello "+osc52+title+csi+" world")
	outs := map[string]string{}
	out, errs, _ := u.exo("", "run", "--session", id, "say it "+title)
	outs["run"] = out + errs
	outs["log"] = u.must("log", id)
	outs["sessions"] = u.must("sessions")
	ex, errs, _ := u.exo("", "exec", id, "--", "printf 'cmd \\033]52;c;aGk=\\007 out\\n'")
	outs["exec"] = ex + errs
	for cmd, o := range outs {
		if strings.ContainsAny(o, "\a\u009b") || strings.Contains(o, "\x1b]") {
			t.Errorf("exo %s printed an escape sequence: %q", cmd, o)
		}
	}
	if !strings.Contains(outs["run"], "answer") || !strings.Contains(outs["run"], "done") {
		t.Errorf("exo run lost the answer's text: %q", outs["run"])
	}
	if !strings.Contains(outs["log"], "hello") || !strings.Contains(outs["log"], "world") {
		t.Errorf("exo log lost the text around the sequences: %q", outs["log"])
	}
	if !strings.Contains(outs["exec"], "cmd") || !strings.Contains(outs["exec"], "out") {
		t.Errorf("exo exec lost the command's text: %q", outs["exec"])
	}
}
