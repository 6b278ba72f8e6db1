package codex

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
const pastedSecret = "pasted-SECRET-value-7a6b5c4d3e2f"

// TestSealedSecretsLeaveNoTrace: a sealed secret the user pastes, exo's bash prints and the model
// repeats in 5-byte deltas (Responses wire), and the sealed key an upstream error quotes, reach
// neither a request body nor a file of Codex's state folders (its rollouts, SQLite state, logs)
// nor its environment nor the log.
func TestSealedSecretsLeaveNoTrace(t *testing.T) {
	sc := &modeltest.Script{Prompts: []modeltest.Prompt{
		{When: "keep this", Turns: []modeltest.Turn{
			{Text: "Reading it.", ToolCalls: []modeltest.Call{{Name: "bash", Input: map[string]any{"command": "cat notes.txt"}}}},
			{Text: "You said " + pastedSecret + " and the file says " + pastedSecret + ".", Chunk: 5},
		}},
		{When: "fail now", Turns: []modeltest.Turn{{Status: 401, Error: "invalid key " + sealedKey + " (also " + pastedSecret + ")"}}},
		{Turns: []modeltest.Turn{{Text: "Hello."}}},
	}}
	f := openFixture(t, t.TempDir(), sc, harness.Options{})
	if err := os.WriteFile(filepath.Join(f.ws, "notes.txt"), []byte("the value is "+pastedSecret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.h.SetSecret("pasted", []byte(pastedSecret)); err != nil {
		t.Fatal(err)
	}
	x := f.executor(t, Options{})
	res, err := x.Prompt(context.Background(), f.s.ID, "keep this: "+pastedSecret, "test")
	if err != nil || res.Failure != "" {
		t.Fatalf("turn: %v %+v", err, res)
	}
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
