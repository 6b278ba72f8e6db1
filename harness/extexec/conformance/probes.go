package conformance

import (
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/extexec/attacktest"
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
	x := f.Open(t, Options{Native: true})
	res := f.prompt(t, x, f.Sess.ID, promptProbe)
	evs := f.events(t, f.Sess.ID)
	attacktest.Check(t, s.home, res.Response, evs, s.bodies(), len(s.probes), s.A.Shell.Name)
	if s.A.External {
		started := payloads[harness.ExecutorStarted](t, evs, harness.TypeExecutorStarted)
		if len(started) != 1 || len(started[0].Unconfined) != 0 || !strings.Contains(started[0].Confinement, "exo's home: hidden") {
			t.Fatalf("executor.started %+v", started)
		}
	}
	if s.A.AfterProbes != nil {
		s.A.AfterProbes(t, f, x)
	}
}
