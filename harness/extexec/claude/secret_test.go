package claude

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"exo/harness"
	"exo/harness/extexec/modeltest"
)

// pastedSecret is a sealed secret other than the model's key: the user pastes it, a workspace
// file holds it, the model repeats it.
const pastedSecret = "pasted-SECRET-value-4f3e2d1c0b9a"

// TestSealedSecretsLeaveNoTrace: a sealed secret the user pastes into the prompt, a tool prints
// (through exo's bash) and the model repeats (streamed in 5-byte pieces), and the sealed key an
// upstream error quotes, reach neither the model's request bodies nor any file of Claude's
// state folders nor its environment nor the log. (Before: the prompt went to Claude as typed,
// so Claude's transcript and every later request body held the secret; the model's repetition
// and the error body reached Claude's transcript as they came.)
func TestSealedSecretsLeaveNoTrace(t *testing.T) {
	sc := &modeltest.Script{Prompts: []modeltest.Prompt{
		{When: "keep this", Turns: []modeltest.Turn{
			{Text: "Reading it.", ToolCalls: []modeltest.Call{{Name: "mcp__exo__bash", Input: map[string]any{"command": "cat notes.txt"}}}},
			{Text: "You said " + pastedSecret + " and the file says " + pastedSecret + ".", Chunk: 5},
		}},
		{When: "fail now", Turns: []modeltest.Turn{
			{Status: 401, Error: "invalid x-api-key " + sealedKey + " (also " + pastedSecret + ")"},
		}},
		{Turns: []modeltest.Turn{{Text: "Hello."}}},
	}}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("the value is "+pastedSecret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := scriptedFixture(t, t.TempDir(), ws, sc, harness.Options{})
	if err := f.h.SetSecret("pasted", []byte(pastedSecret)); err != nil {
		t.Fatal(err)
	}
	x := f.executor(t, Options{})
	res, err := x.Prompt(context.Background(), f.s.ID, "keep this: "+pastedSecret, "test")
	okResult(t, res, err)
	res, _ = x.Prompt(context.Background(), f.s.ID, "fail now", "test")
	if res.Failure == "" {
		t.Fatalf("the turn whose call failed did not fail: %+v", res)
	}
	sess := x.Session(f.s.ID)
	if sess == nil {
		t.Fatal("no claude session")
	}
	secrets := map[string]string{"the sealed key": sealedKey, "the pasted secret": pastedSecret}
	for what, val := range secrets {
		if bytes.Contains([]byte(res.Failure+res.Response), []byte(val)) {
			t.Errorf("%s is in the turn's result: %+v", what, res)
		}
		for i, r := range f.srv.Requests() {
			if bytes.Contains(r.Body, []byte(val)) {
				t.Errorf("%s is in request body %d", what, i)
			}
		}
		if p := pid(x, f.s.ID); p != 0 {
			environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", p))
			if err == nil && bytes.Contains(environ, []byte(val)) {
				t.Errorf("%s is in claude's environment", what)
			}
		}
		for _, e := range f.events(t, f.s.ID) {
			if bytes.Contains(e.Data, []byte(val)) {
				t.Errorf("%s is in event %d (%s)", what, e.Seq, e.Type)
			}
		}
		filepath.WalkDir(sess.Dirs.Root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(val)) {
				t.Errorf("%s is in %s", what, p)
			}
			return nil
		})
	}
}
