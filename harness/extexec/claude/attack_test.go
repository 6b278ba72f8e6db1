package claude

import (
	"context"
	"errors"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/extexec"
	"exo/harness/extexec/attacktest"
	"exo/harness/extexec/modeltest"
	"exo/sandbox"
)

// TestNativeBashCannotReadExoHome: Claude with native tools runs Bash commands that go for exo's
// sealed-secrets key and database by a glob, through /proc/self/root, through a symlink it plants
// and by a relative path (none names exo's home; the same commands read both files when run
// unconfined). Under exo's confinement each finds nothing, and the key's bytes are in no request
// the model server received, no event, no file in EXO_HOME, and not in the answer.
func TestNativeBashCannotReadExoHome(t *testing.T) {
	home := attacktest.Home(t)
	probes := attacktest.Probes(home)
	f := scriptedFixture(t, home, "", attacktest.Script("Bash", "command", map[string]any{"description": "look around"}, probes), harness.Options{})
	attacktest.Control(t, home, t.TempDir())
	if !f.h.Capabilities().MountNS {
		t.Skip("no mount namespaces here: exo's home cannot be hidden (native Claude is refused; see TestNativeRefusedWhereUnconfinable)")
	}
	x := f.executor(t, Options{NativeTools: true})
	res, err := x.Prompt(context.Background(), f.s.ID, "probe exo's home", "test")
	okResult(t, res, err)
	evs := f.events(t, f.s.ID)
	var bodies [][]byte
	for _, r := range f.srv.Requests() {
		bodies = append(bodies, r.Body)
	}
	attacktest.Check(t, home, res.Response, evs, bodies, len(probes), "Bash")
	started := payloads[harness.ExecutorStarted](t, evs, harness.TypeExecutorStarted)
	if len(started) != 1 || len(started[0].Unconfined) != 0 || !strings.Contains(started[0].Confinement, "exo's home: hidden") {
		t.Fatalf("executor.started %+v", started)
	}
}

// TestNativeRefusedWhereUnconfinable: on a machine without mount namespaces, Claude with native
// tools is refused with the reason and nothing starts; with the user's consent it runs and
// executor.started says plainly what is not enforced; Claude with exo's tools runs there, told
// plainly too.
func TestNativeRefusedWhereUnconfinable(t *testing.T) {
	caps := sandbox.Probe()
	caps.MountNS, caps.PidNS = false, false
	f := scriptedFixture(t, t.TempDir(), "", &modeltest.Script{Prompts: []modeltest.Prompt{{Turns: []modeltest.Turn{{Text: "Hello."}}}}}, harness.Options{Capabilities: &caps})
	x := f.executor(t, Options{NativeTools: true})
	_, err := x.Prompt(context.Background(), f.s.ID, "say hello", "test")
	if !errors.Is(err, extexec.ErrUnconfined) || !strings.Contains(err.Error(), "hiding exo's home") {
		t.Fatalf("native claude where exo's home cannot be hidden: %v", err)
	}
	if x.Session(f.s.ID) != nil || strings.Contains(types(f.events(t, f.s.ID)), "invocation.received") {
		t.Fatalf("a refused agent left traces: %s", types(f.events(t, f.s.ID)))
	}
	for _, o := range []Options{{NativeTools: true, AllowUnconfined: true}, {}} {
		x := f.executor(t, o)
		res, err := x.Prompt(context.Background(), f.s.ID, "say hello", "test")
		okResult(t, res, err)
		started := payloads[harness.ExecutorStarted](t, f.events(t, f.s.ID), harness.TypeExecutorStarted)
		last := started[len(started)-1]
		if last.Allowed != o.NativeTools || !strings.Contains(strings.Join(last.Unconfined, ";"), "hiding exo's home") {
			t.Fatalf("executor.started with %+v: %+v", o, last)
		}
		x.Close()
	}
}
