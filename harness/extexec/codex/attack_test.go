package codex

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/extexec"
	"exo/harness/extexec/attacktest"
	"exo/harness/extexec/modeltest"
	"exo/sandbox"
)

// TestNativeCommandsCannotReadExoHome: Codex with native tools runs commands that go for exo's
// sealed-secrets key and database by a glob, through /proc/self/root, through a symlink it
// plants and by a relative path (none names exo's home, so exo's command-text check lets them
// through; the same commands read both files when run unconfined). Under exo's confinement each
// finds nothing, and the key's bytes are in no request the model server received, no event, no
// artifact, no file in EXO_HOME and not in the answer.
func TestNativeCommandsCannotReadExoHome(t *testing.T) {
	testStart := time.Now()
	home := attacktest.Home(t)
	probes := attacktest.Probes(home)
	f := openFixture(t, home, attacktest.Script("exec_command", "cmd", nil, probes), harness.Options{})
	attacktest.Control(t, home, t.TempDir())
	if caps := f.h.Capabilities(); !caps.MountNS {
		t.Skip("no mount namespaces here: exo's home cannot be hidden (codex with native tools is refused; see TestNativeRefusedWhereUnconfinable)")
	}
	x := f.executor(t, Options{NativeTools: true})
	res, err := x.Prompt(context.Background(), f.s.ID, "probe exo's home", "test")
	okResult(t, res, err)
	evs := f.events(t, f.s.ID)
	var bodies [][]byte
	for _, r := range f.srv.Requests() {
		bodies = append(bodies, r.Body)
	}
	attacktest.Check(t, home, res.Response, evs, bodies, len(probes), "exec_command")
	started := payloads[harness.ExecutorStarted](t, evs, harness.TypeExecutorStarted)
	if len(started) != 1 || len(started[0].Unconfined) != 0 || !strings.Contains(started[0].Confinement, "exo's home: hidden") {
		t.Fatalf("executor.started %+v", started)
	}
	// Codex makes a codex-daemon-UID folder in /tmp whatever TMPDIR says; its /tmp is its own
	// temp folder under EXO_HOME, so that is where the folder is. Where that folder has a quota it
	// is a tmpfs of the agent's own mount namespace, which leaves nothing on disk: the folder must
	// then be on none of the host's /tmp either.
	tmp := x.Session(f.s.ID).Dirs.Tmp
	if m, _ := filepath.Glob(filepath.Join(tmp, "codex-daemon-*")); len(m) == 0 {
		if !strings.Contains(started[0].Confinement, "tmp (tmpfs)") {
			t.Fatalf("no codex-daemon folder in codex's temp folder %s, which has no quota (%s)", tmp, started[0].Confinement)
		}
		host, _ := filepath.Glob("/tmp/codex-daemon-*")
		for _, d := range host {
			if fi, err := os.Stat(d); err == nil && fi.ModTime().After(testStart) {
				t.Fatalf("codex made its folder %s in the host's /tmp", d)
			}
		}
	}
}

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
		t.Fatalf("a refused agent left traces: %s", types(f.events(t, f.s.ID)))
	}
	for _, o := range []Options{{NativeTools: true, AllowUnconfined: true}, {}} {
		x := f.executor(t, o)
		res, err := x.Prompt(context.Background(), f.s.ID, "say hello", "test")
		okResult(t, res, err)
		started := payloads[harness.ExecutorStarted](t, f.events(t, f.s.ID), harness.TypeExecutorStarted)
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
