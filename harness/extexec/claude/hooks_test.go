package claude

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/exectest"
	"exo/harness/plugins"
	"exo/harness/trust"
)

func TestHooksAndCommandsApplyToClaudeTurns(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(f.ws, ".exo")
	os.MkdirAll(filepath.Join(dir, "commands"), 0o755)
	os.WriteFile(filepath.Join(dir, "commands", "greet.md"), []byte("say hello to $ARGUMENTS\n"), 0o644)
	settings := []byte(`{"hooks": {
		"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo EXTRA-CONTEXT-42"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "grep -q '\"stop_hook_active\":true' || { echo 'now say hello again' >&2; exit 2; }"}]}]
	}}`)
	os.WriteFile(filepath.Join(dir, "settings.json"), settings, 0o644)
	// The project's hooks run only once the user trusts them (exo trust).
	if err := trust.Open(f.h.Home()).Trust(f.ws, map[string]string{".exo/settings.json": trust.Hash(settings)}); err != nil {
		t.Fatal(err)
	}
	var o executor.Options
	pl := plugins.Install(f.h, &o)
	t.Cleanup(pl.Close)
	x := f.executor(t, Options{Exec: o})
	res, err := x.Prompt(context.Background(), f.s.ID, "/greet the tester", "test")
	okResult(t, res, err)
	msgs := f.srv.Messages()
	if len(msgs) != 2 {
		t.Fatalf("%d model calls, want the prompt and the Stop hook's follow-up", len(msgs))
	}
	if b := msgs[0].Body; !bytes.Contains(b, []byte("say hello to the tester")) || !bytes.Contains(b, []byte("EXTRA-CONTEXT-42")) {
		t.Fatalf("the command was not expanded or the hook's context is missing: %s", tail(b, 2000))
	}
	if !bytes.Contains(msgs[1].Body, []byte("now say hello again")) {
		t.Fatalf("the Stop hook's message did not reach claude: %s", tail(msgs[1].Body, 2000))
	}
	inv := exectest.Payloads[harness.InvocationReceived](t, f.events(t, f.s.ID), harness.TypeInvocationReceived)
	if len(inv) != 2 || !strings.HasPrefix(inv[0].Source, "command") || inv[1].Source != "hook" {
		t.Fatalf("prompts %+v", inv)
	}
}
