package exectest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"exo/harness"
	"exo/harness/extexec"
	"exo/harness/extexec/modeltest"
)

// Secrets are the two sealed secrets of the scenario: the model's key, and a value the user
// pastes, a workspace file holds and the model repeats.
type Secrets struct {
	Key, Pasted string
}

// SecretScript is the model's part of the scenario. To "keep this" it calls tool (the agent's
// name of exo's bash) to print notes.txt, then repeats the pasted secret twice in 5-byte
// pieces; to "fail now" it answers 401 with an error whose text, after errPrefix, quotes both
// secrets; then come the prompts of more (an agent's side calls, such as a title) and, for any
// other prompt, "Hello.".
func SecretScript(tool, errPrefix string, s Secrets, more ...modeltest.Prompt) *modeltest.Script {
	prompts := []modeltest.Prompt{
		{When: "keep this", Turns: []modeltest.Turn{
			{Text: "Reading it.", ToolCalls: []modeltest.Call{{Name: tool, Input: map[string]any{"command": "cat notes.txt"}}}},
			{Text: "You said " + s.Pasted + " and the file says " + s.Pasted + ".", Chunk: 5},
		}},
		{When: "fail now", Turns: []modeltest.Turn{{Status: 401, Error: errPrefix + s.Key + " (also " + s.Pasted + ")"}}},
	}
	prompts = append(prompts, more...)
	prompts = append(prompts, modeltest.Prompt{Turns: []modeltest.Turn{{Text: "Hello."}}})
	return &modeltest.Script{Prompts: prompts}
}

// WriteNotes writes the workspace file holding the pasted secret (notes.txt in ws).
func WriteNotes(t testing.TB, ws string, s Secrets) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("the value is "+s.Pasted+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Server is a scripted model server: what it received.
type Server interface {
	Requests() []modeltest.Seen
}

// SealedSecrets runs the scenario on session sid of h, whose model server srv plays
// SecretScript and whose workspace holds WriteNotes' file: it seals the pasted value, opens the
// executor with open (after the sealing, as a user's exo would find it), prompts
// "keep this: " with it (the turn must end normally), then "fail now" (the turn must fail), and
// checks that neither secret is in the failed turn's result, any request body srv received, any
// file of the agent's state folders, the agent's environment, or the session's events.
func SealedSecrets(t *testing.T, h *harness.Harness, sid string, srv Server, s Secrets, open func() *extexec.Runner) {
	t.Helper()
	if err := h.SetSecret("pasted", []byte(s.Pasted)); err != nil {
		t.Fatal(err)
	}
	r := open()
	res, err := r.Prompt(context.Background(), sid, "keep this: "+s.Pasted, "test")
	if err != nil || res.Failure != "" || res.Cancelled {
		t.Fatalf("turn: err %v, result %+v", err, res)
	}
	res, _ = r.Prompt(context.Background(), sid, "fail now", "test")
	if res.Failure == "" {
		t.Fatalf("the turn whose call failed did not fail: %+v", res)
	}
	ss := r.Session(sid)
	if ss == nil {
		t.Fatal("no live agent session after the turns")
	}
	tr := Traces{Texts: []string{res.Failure, res.Response}, Roots: []string{ss.Dirs.Root}, Pid: Pid(r, sid), Events: Events(t, h, sid)}
	for _, q := range srv.Requests() {
		tr.Bodies = append(tr.Bodies, q.Body)
	}
	NoSecretIn(t, map[string]string{"the sealed key": s.Key, "the pasted secret": s.Pasted}, tr)
}
