package conformance

import (
	"bytes"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/attacktest"
	"exo/harness/extexec/exectest"
)

// HomeProbes: the agent's own shell (exo's bash for exo's own executor) runs commands that go
// for exo's sealed-secrets key and database by a glob, through /proc/self/root, through a
// symlink it plants and by a relative path (none names exo's home; the same commands read both
// files when run unconfined). Under exo's confinement each finds nothing, and the key's bytes are
// in no request the model server received, no event, no file in EXO_HOME and not in the answer.
func HomeProbes(t *testing.T, s *Suite) {
	f := s.Fixture(t, s.home, harness.Options{})
	attacktest.Control(t, s.home, t.TempDir())
	if !f.H.Capabilities().MountNS {
		t.Skip("no mount namespaces here: exo's home cannot be hidden (agents acting themselves are refused)")
	}
	// Every ask is approved (an agent in a mode that asks before it writes, as codex-acp's
	// read-only, would otherwise be stopped by exo's policy): only confinement may stop a probe.
	x := f.Open(t, Options{Native: true, Exec: executor.Options{AutoApprove: true}})
	res := f.prompt(t, x, f.Sess.ID, promptProbe)
	evs := f.events(t, f.Sess.ID)
	if !s.A.Shell.AnyTitle {
		attacktest.Check(t, s.home, res.Response, evs, s.bodies(), len(s.probes), s.A.Shell.Name)
	} else {
		// The agent's tool.completed carries no output (and may come after the turn's end):
		// what each probe found is in what the model was sent back.
		attacktest.Outputs(t, s.home, res.Response, evs, s.bodies(), -1, "")
		// each probe reads two files: two "No such file" a probe, in the request that sends
		// the last probe's output back (the one that holds the most)
		most := 0
		for _, q := range s.requestsWith(promptProbe) {
			if bytes.Contains(q.Body, []byte("denied: secret")) {
				t.Errorf("a probe was refused by exo's command check, not stopped by confinement")
			}
			most = max(most, bytes.Count(q.Body, []byte("No such file")))
		}
		if most < 2*len(s.probes) {
			t.Errorf("the model was told of %d files not found, want %d", most, 2*len(s.probes))
		}
	}
	if s.A.External {
		started := exectest.Payloads[harness.ExecutorStarted](t, evs, harness.TypeExecutorStarted)
		if len(started) != 1 || len(started[0].Unconfined) != 0 || !strings.Contains(started[0].Confinement, "exo's home: hidden") {
			t.Fatalf("executor.started %+v", started)
		}
	}
	if s.A.AfterProbes != nil {
		s.A.AfterProbes(t, f, x)
	}
}
