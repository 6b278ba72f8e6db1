package e2e

import (
	"strings"
	"testing"

	"exo/harness/provider/providertest"
)

// TestMaxStepsE2E: exo run --max-steps N against a model that never stops calling tools exits
// 3 (not 130, not "interrupted") after N model calls, saying so and how to carry on; the log
// records turn.step_limit once and no turn.cancelled; 0, negative and non-numeric limits are
// usage errors (exit 2) that reach no model.
func TestMaxStepsE2E(t *testing.T) {
	t.Parallel()
	again := providertest.ChatReply{Text: "more", ToolCalls: []providertest.ChatToolCall{{ID: "c1", Name: "list_dir", Args: `{"path":"."}`}}}
	srv := providertest.NewScriptedChat(again)
	defer srv.Close()
	home, ws := t.TempDir(), t.TempDir()
	mustRunIn(t, home, ws, "model", "register", "chat", "--provider", "openai-compatible", "--model-id", "local",
		"--base-url", srv.BaseURL(), "--context-window", "32000")
	mustRunIn(t, home, ws, "new", "--name", "lim")
	for _, bad := range []string{"0", "-1", "-50", "x"} {
		_, errs, code := exoEnv(t, home, ws, nil, "run", "--session", "lim", "--max-steps", bad, "go")
		if code != 2 || !strings.Contains(errs, "max-steps") {
			t.Fatalf("--max-steps %s: exit %d %q", bad, code, errs)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("a rejected limit reached the model %d times", n)
	}
	out, errs, code := exoEnv(t, home, ws, nil, "run", "--session", "lim", "--max-steps", "3", "go on forever")
	if code != 3 || !strings.Contains(errs, "stopped at the step limit (3 model calls in one turn)") ||
		!strings.Contains(errs, "exo run --session lim") || strings.Contains(errs, "interrupted") {
		t.Fatalf("at the limit: exit %d\n%s\n%s", code, out, errs)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("%d model calls under --max-steps 3", n)
	}
	out, errs, code = exoEnv(t, home, ws, nil, "run", "--session", "lim", "--max-steps", "1", "--output-format", "json", "again")
	if code != 3 || !strings.Contains(out, `"exit_code": 3`) || !strings.Contains(out, "step limit") {
		t.Fatalf("json at the limit: exit %d\n%s\n%s", code, out, errs)
	}
	log := mustRunIn(t, home, ws, "log", "lim")
	if strings.Count(log, "turn.step_limit") != 2 || strings.Contains(log, "turn.cancelled") {
		t.Fatalf("the log:\n%s", log)
	}
}
