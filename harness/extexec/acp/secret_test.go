package acp

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"exo/harness"
	"exo/harness/extexec/attacktest"
	"exo/harness/extexec/modeltest"
)

// pastedSecret is a sealed secret other than the model's key.
const pastedSecret = "pasted-SECRET-value-9c8b7a6f5e4d"

// TestSealedSecretsLeaveNoTrace: with claude-agent-acp, a sealed secret the user pastes, exo's
// bash prints and the model repeats in 5-byte deltas, and the sealed key an upstream error
// quotes, reach neither a request body nor a file of the agent's state folders nor its
// environment nor the log.
func TestSealedSecretsLeaveNoTrace(t *testing.T) {
	bin := claudeACP(t)
	sc := &modeltest.Script{Prompts: []modeltest.Prompt{
		{When: "keep this", Turns: []modeltest.Turn{
			{Text: "Reading it.", ToolCalls: []modeltest.Call{{Name: "mcp__exo__bash", Input: map[string]any{"command": "cat notes.txt"}}}},
			{Text: "You said " + pastedSecret + " and the file says " + pastedSecret + ".", Chunk: 5},
		}},
		{When: "fail now", Turns: []modeltest.Turn{{Status: 401, Error: "invalid x-api-key " + sealedKey + " (also " + pastedSecret + ")"}}},
		{When: "Write the title", Turns: []modeltest.Turn{{Text: "Title"}}},
		{Turns: []modeltest.Turn{{Text: "Hello."}}},
	}}
	f := openFixture(t, t.TempDir(), sc, harness.Options{})
	if err := os.WriteFile(filepath.Join(f.ws, "notes.txt"), []byte("the value is "+pastedSecret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.h.SetSecret("pasted", []byte(pastedSecret)); err != nil {
		t.Fatal(err)
	}
	x := f.executor(t, Options{Command: []string{bin}})
	res, err := x.Prompt(context.Background(), f.s.ID, "keep this: "+pastedSecret, "test")
	okResult(t, res, err)
	res, _ = x.Prompt(context.Background(), f.s.ID, "fail now", "test")
	if res.Failure == "" {
		t.Fatalf("the turn whose call failed did not fail: %+v", res)
	}
	ss := x.Session(f.s.ID)
	tr := attacktest.Traces{Roots: []string{ss.Dirs.Root}, Events: f.events(t, f.s.ID)}
	if ss.Proc != nil {
		tr.Pid = ss.Proc.(*proc).Pid()
	}
	for _, r := range f.srv.Requests() {
		tr.Bodies = append(tr.Bodies, r.Body)
	}
	attacktest.NoSecretIn(t, map[string]string{"the sealed key": sealedKey, "the pasted secret": pastedSecret}, tr)
}
