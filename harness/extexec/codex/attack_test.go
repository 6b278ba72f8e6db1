package codex

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/extexec"
	"exo/harness/extexec/exectest"
	"exo/harness/extexec/modeltest"
	"exo/sandbox"
)

// TestNativeRefusedWhereUnconfinable: on a machine without mount namespaces (exo's home cannot
// be hidden there), Codex with native tools is refused with the reason, no codex starts and
// nothing is recorded; with the user's explicit consent it runs and executor.started says plainly
// what is not enforced; Codex with exo's tools runs there, told plainly too.
func TestNativeRefusedWhereUnconfinable(t *testing.T) {
	caps := sandbox.Probe()
	caps.MountNS, caps.PidNS = false, false
	sc, err := modeltest.LoadScript(filepath.Join("testdata", "turns.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	f := openFixture(t, t.TempDir(), sc, harness.Options{Capabilities: &caps})
	before := len(f.events(t, f.s.ID))
	x := f.executor(t, Options{NativeTools: true})
	_, err = x.Prompt(context.Background(), f.s.ID, "say hello", "test")
	if !errors.Is(err, extexec.ErrUnconfined) || !strings.Contains(err.Error(), "hiding exo's home") || !strings.Contains(err.Error(), "--allow-unconfined") {
		t.Fatalf("native codex where exo's home cannot be hidden: %v", err)
	}
	if x.Session(f.s.ID) != nil || len(f.events(t, f.s.ID)) != before || len(f.srv.Requests()) != 0 {
		t.Fatalf("a refused agent left traces: %s", exectest.Types(f.events(t, f.s.ID)))
	}
	for _, o := range []Options{{NativeTools: true, AllowUnconfined: true}, {}} {
		x := f.executor(t, o)
		res, err := x.Prompt(context.Background(), f.s.ID, "say hello", "test")
		okResult(t, res, err)
		started := exectest.Payloads[harness.ExecutorStarted](t, f.events(t, f.s.ID), harness.TypeExecutorStarted)
		last := started[len(started)-1]
		if !strings.Contains(strings.Join(last.Unconfined, ";"), "hiding exo's home") || last.Allowed != o.NativeTools || last.NativeTools != o.NativeTools {
			t.Fatalf("executor.started with %+v: %+v", o, last)
		}
		st, err := f.h.State(f.s.ID)
		if err != nil {
			t.Fatal(err)
		}
		shown := false
		for _, it := range st.Items {
			shown = shown || it.Kind == harness.ItemError && strings.Contains(it.Text, "codex runs NOT FULLY CONFINED")
		}
		if !shown {
			t.Fatalf("the conversation does not say codex is not confined: %+v", st.Items)
		}
		x.Close()
	}
}
