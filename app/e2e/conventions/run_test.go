package conventions

import (
	"strings"
	"testing"
)

// TestRunContinueAndStreamJSON: exo run starts a session here; exo run -c continues the
// directory's most recent one (not a session of another directory, nor an older one); the
// stream-json format prints an init line, one line per committed event, the streamed text as
// deltas, and the result last.
func TestRunContinueAndStreamJSON(t *testing.T) {
	u := newUser(t)
	u.model("writer", writeScript)
	if _, errs, code := u.exo("", "run", "-c", "x"); code != 2 || !strings.Contains(errs, "no session in") {
		t.Fatalf("-c with no session here: exit %d %q", code, errs)
	}
	first := runJSON(t, u, "run", "--json", "first")
	older := runJSON(t, u, "run", "--json", "older one")                                       // newer than first…
	runJSON(t, u, "run", "--json", "--session", first["session_id"].(string), "back to first") // …but first is now the most recent
	other := t.TempDir()
	if out, errs, code := u.exo(other, "run", "--json", "elsewhere"); code != 0 {
		t.Fatalf("run elsewhere: %d %s %s", code, out, errs)
	}
	out, errs, code := u.exo("", "run", "-c", "--output-format", "stream-json", "again")
	if code != 0 {
		t.Fatalf("stream-json: exit %d %s", code, errs)
	}
	lines := jsonLines(t, out)
	if lines[0]["type"] != "init" || lines[0]["session_id"] != first["session_id"] {
		t.Fatalf("-c did not continue the most recent session here (first %v, older %v): %v", first["session_id"], older["session_id"], lines[0])
	}
	last := lines[len(lines)-1]
	if last["type"] != "result" || last["session_id"] != first["session_id"] || last["exit_code"].(float64) != 0 || !strings.Contains(last["response"].(string), "All done here.") {
		t.Fatalf("result line: %v", last)
	}
	var text strings.Builder
	types := map[string]int{}
	seqs := []float64{}
	for _, l := range lines[1 : len(lines)-1] {
		switch l["type"] {
		case "text_delta":
			text.WriteString(l["text"].(string))
		case "event":
			ev := l["event"].(map[string]any)
			types[ev["type"].(string)]++
			seqs = append(seqs, ev["seq"].(float64))
		default:
			t.Fatalf("unexpected line %v", l)
		}
	}
	if !strings.Contains(text.String(), "Writing it.") || !strings.Contains(text.String(), "All done here.") {
		t.Fatalf("deltas: %q", text.String())
	}
	for _, want := range []string{"invocation.received", "model.completed", "tool.started", "tool.completed"} {
		if types[want] == 0 {
			t.Fatalf("no %s event line: %v", want, types)
		}
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] != seqs[i-1]+1 {
			t.Fatalf("events out of order or missing: %v", seqs)
		}
	}
	if seqs[0] != lines[0]["seq"].(float64)+1 {
		t.Fatalf("the first event line is %v, the init seq %v", seqs[0], lines[0]["seq"])
	}
	// Aliases and refusals.
	if _, errs, code := u.exo("", "run", "--json", "--output-format", "stream-json", "x"); code != 2 || !strings.Contains(errs, "--json") {
		t.Fatalf("--json with stream-json: %d %q", code, errs)
	}
	if _, errs, code := u.exo("", "run", "--output-format", "yaml", "x"); code != 2 || !strings.Contains(errs, "yaml") {
		t.Fatalf("unknown format: %d %q", code, errs)
	}
	if _, _, code := u.exo("", "run", "-c", "--session", "x", "y"); code != 2 {
		t.Fatalf("-c with --session: %d", code)
	}
	if res := runJSON(t, u, "run", "--output-format", "json", "-c", "once more"); res["session_id"] != first["session_id"] {
		t.Fatalf("--output-format json -c: %v", res)
	}
}
