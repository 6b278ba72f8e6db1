package conformance

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/extexec/exectest"
	"exo/harness/provider"
)

// pasted is a sealed secret other than the model's key: the user pastes it, a workspace file
// holds it, the model repeats it.
const pasted = "pasted-SECRET-value-4f3e2d1c0b9a"

// SealedSecrets: a sealed secret the user pastes into the prompt, exo's bash prints and the
// model repeats (in 5-byte pieces), and the sealed key an upstream error quotes, reach neither
// the turns' results nor the model's request bodies nor any file under EXO_HOME (the agent's
// state folders, logs, the database) nor the agent's environment nor the session's events.
func SealedSecrets(t *testing.T, s *Suite) {
	f := s.Fixture(t, "", harness.Options{})
	if err := os.WriteFile(filepath.Join(f.WS, "notes.txt"), []byte("the value is "+pasted+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.H.SetSecret("pasted", []byte(pasted)); err != nil {
		t.Fatal(err)
	}
	x := f.Open(t, Options{})
	ok := f.prompt(t, x, f.Sess.ID, promptKeep+": "+pasted)
	failed, _ := x.Prompt(context.Background(), f.Sess.ID, promptFail)
	if failed.Failure == "" {
		t.Fatalf("the turn whose call failed did not fail: %+v", failed)
	}
	if !strings.Contains(ok.Response, "‹secret:pasted›") {
		t.Errorf("the repeated secret is not redacted in the answer: %q", ok.Response)
	}
	tr := exectest.Traces{Texts: []string{ok.Response, failed.Failure, failed.Response}, Roots: []string{f.Home}, Events: f.events(t, f.Sess.ID)}
	if x.Runner != nil {
		ss := x.Runner.Session(f.Sess.ID)
		if ss == nil {
			t.Fatal("no live agent session after the turns")
		}
		tr.Pid = exectest.Pid(x.Runner, f.Sess.ID)
		tr.Roots = append(tr.Roots, ss.Dirs.Root)
	}
	for _, q := range append(s.requestsWith(promptKeep), s.requestsWith(promptFail)...) {
		tr.Bodies = append(tr.Bodies, q.Body)
	}
	if len(tr.Bodies) < 3 {
		t.Fatalf("only %d requests of the turns to search", len(tr.Bodies))
	}
	exectest.NoSecretIn(t, map[string]string{"the sealed key": s.Key, "the pasted secret": pasted}, tr)
}

// SecretInReasoning: a sealed key the model's reasoning quotes is redacted in model.completed,
// which keeps no signature for it (the API could no longer verify it); no event holds the key.
func SecretInReasoning(t *testing.T, s *Suite) {
	f := s.Fixture(t, "", harness.Options{})
	x := f.Open(t, Options{})
	f.prompt(t, x, f.Sess.ID, promptThinkKey)
	evs := f.events(t, f.Sess.ID)
	exectest.NoSecretIn(t, map[string]string{"the sealed key": s.Key}, exectest.Traces{Events: evs})
	var kept []harness.Reasoning
	for _, c := range exectest.Payloads[harness.ModelCompleted](t, evs, harness.TypeModelCompleted) {
		kept = append(kept, c.Reasoning...)
	}
	if len(kept) != 1 || !kept[0].Redacted || kept[0].Signature != "" || !strings.Contains(provider.ReasoningText(kept), "‹secret:"+keyName+"›") {
		t.Fatalf("reasoning kept %+v", kept)
	}
}
