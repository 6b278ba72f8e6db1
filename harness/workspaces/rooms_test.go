package workspaces

import (
	"context"
	"os"
	"testing"

	"exo/harness/eventlog"
	"exo/harness/runtimes"
	"exo/harness/sealed"
	"exo/harness/sessions"
	"exo/sandbox"
)

// TestMain lets the test binary act as the sandbox's confinement helper, and as a detached
// task's process, as exo's main.go does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	if len(os.Args) > 2 && os.Args[1] == "__task-run" {
		if err := runtimes.RunDetached(os.Args[2]); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// testHelper is the helper argv for the sandboxes started in tests.
func testHelper() []string { return []string{os.Args[0], sandbox.HelperCommand} }

// rooms is the workspaces on the rooms below them, opened without the harness: their methods
// are its, as they are the harness's.
type rooms struct {
	*eventlog.Log
	*sealed.Secrets
	*sessions.Directory
	*runtimes.Runtimes
	*Workspaces
	home string
}

// Home returns the rooms' EXO_HOME.
func (r *rooms) Home() string { return r.home }

// hooks are the runtime room's hooks into the workspaces r will hold, as the harness wires
// them: the runtime room is built first, and finds the workspaces when it calls.
func (r *rooms) hooks() runtimes.Hooks {
	return runtimes.Hooks{
		Watch:     func(rt *runtimes.Runtime) (context.CancelFunc, error) { return r.Workspaces.Watch(rt) },
		Progress:  func(sessionID string) sandbox.ProgressFunc { return r.Workspaces.ProgressReporter(sessionID) },
		TaskEnded: func(sessionID string) { _, _ = r.Workspaces.SnapshotWorkspace(sessionID, "", "") },
	}
}

// openTest opens the rooms on a fresh EXO_HOME, bottom up as the harness does, and closes
// them, top down, when the test ends.
func openTest(t *testing.T) *rooms {
	t.Helper()
	home := t.TempDir()
	st, err := eventlog.OpenStore(home, eventlog.StoreConfig{})
	if err != nil {
		t.Fatal(err)
	}
	r := &rooms{home: home}
	if r.Secrets, err = sealed.Open(st, []string{home}); err != nil {
		st.Close()
		t.Fatal(err)
	}
	r.Log = eventlog.New(st, eventlog.Options{Redact: func(b []byte) []byte {
		if red := r.Secrets.Redactor(); red != nil {
			return red.Bytes(b)
		}
		return b
	}})
	r.Directory = sessions.New(r.Log, r.Secrets, sessions.Hooks{})
	r.Runtimes = runtimes.New(r.Log, r.Directory, r.Secrets,
		runtimes.Options{Home: home, Private: []string{home}, Helper: testHelper(), Hooks: r.hooks()})
	r.Workspaces = New(r.Log, r.Directory, r.Secrets, r.Runtimes, Options{Home: home, Private: []string{home}, Helper: testHelper()})
	t.Cleanup(func() {
		r.StopBackground()
		r.ReleaseAll()
		r.Runtimes.Close()
		r.CloseSubscriptions()
		st.Close()
	})
	return r
}
