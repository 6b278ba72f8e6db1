package claude

import (
	"context"
	"errors"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/extexec"
	"exo/harness/extexec/exectest"
	"exo/harness/extexec/modeltest"
	"exo/sandbox"
)

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
	if x.Session(f.s.ID) != nil || strings.Contains(exectest.Types(f.events(t, f.s.ID)), "invocation.received") {
		t.Fatalf("a refused agent left traces: %s", exectest.Types(f.events(t, f.s.ID)))
	}
	for _, o := range []Options{{NativeTools: true, AllowUnconfined: true}, {}} {
		x := f.executor(t, o)
		res, err := x.Prompt(context.Background(), f.s.ID, "say hello", "test")
		okResult(t, res, err)
		started := exectest.Payloads[harness.ExecutorStarted](t, f.events(t, f.s.ID), harness.TypeExecutorStarted)
		last := started[len(started)-1]
		if last.Allowed != o.NativeTools || !strings.Contains(strings.Join(last.Unconfined, ";"), "hiding exo's home") {
			t.Fatalf("executor.started with %+v: %+v", o, last)
		}
		x.Close()
	}
}
