package e2e

import (
	"strings"
	"testing"
)

// TestResumePicker runs exo -r in a terminal: the picker lists this directory's sessions
// before another directory's, typing filters, enter opens the app on the chosen session; a
// second exo -r cancelled with esc opens nothing and exits 0; exo -r NAME opens NAME at once.
func TestResumePicker(t *testing.T) {
	t.Parallel()
	home, ws, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	mustRunIn(t, home, ws, "model", "register", "demo", "--provider", "scripted")
	mustRunIn(t, home, ws, "new", "--name", "alpha")
	mustRunIn(t, home, ws, "new", "--name", "beta")
	mustRunIn(t, home, elsewhere, "new", "--name", "gamma")
	mustRunIn(t, home, ws, "say", "alpha", "the alpha prompt")

	scr := startTmux(t, 120, 30, "cd "+ws+" && EXO_HOME="+home+" "+exoBin+" -r --theme dark; echo picker-exit=$?; sleep 60")
	s := scr.waitFor("the picker", contains("Resume a session"))
	a, b, g := strings.Index(s, "alpha"), strings.Index(s, "beta"), strings.Index(s, "gamma")
	if a < 0 || b < 0 || g < 0 || g < a || g < b || !strings.Contains(s, "the alpha prompt") {
		t.Fatalf("this directory's sessions are not listed first:\n%s", s)
	}
	scr.keys("bet")
	scr.waitFor("the filter", func(s string) bool { return strings.Contains(s, "1/3") && !strings.Contains(s, "alpha") })
	scr.keys("Enter")
	scr.waitFor("the app on beta", contains(" beta │"))
	scr.keys("C-q")
	scr.waitFor("the app closed", contains("picker-exit=0"))

	scr2 := startTmux(t, 120, 30, "cd "+ws+" && EXO_HOME="+home+" "+exoBin+" -r --theme dark; echo picker-exit=$?; sleep 60")
	scr2.waitFor("the picker", contains("Resume a session"))
	scr2.keys("Escape")
	s = scr2.waitFor("exo to exit", contains("picker-exit=0"))
	if strings.Contains(s, "Prompt") {
		t.Fatalf("the app opened after esc:\n%s", s)
	}

	scr3 := startTmux(t, 120, 30, "cd "+ws+" && EXO_HOME="+home+" "+exoBin+" -r gamma --theme dark; sleep 60")
	scr3.waitFor("the app on gamma", contains(" gamma │"))
	scr3.keys("C-q")
}
