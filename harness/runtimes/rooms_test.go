package runtimes

import (
	"os"
	"testing"

	"exo/harness/eventlog"
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
		if err := RunDetached(os.Args[2]); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// testHelper is the helper argv for the sandboxes started in tests.
func testHelper() []string { return []string{os.Args[0], sandbox.HelperCommand} }

// rooms is the runtime room on the rooms below it, opened without the harness (and without
// the workspaces above it: its hooks are unset): their methods are its, as they are the
// harness's.
type rooms struct {
	*eventlog.Log
	*sealed.Secrets
	*sessions.Directory
	*Runtimes
	home string
}

// Home returns the rooms' EXO_HOME.
func (r *rooms) Home() string { return r.home }

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
	r.Runtimes = New(r.Log, r.Directory, r.Secrets, Options{Home: home, Private: []string{home}, Helper: testHelper()})
	t.Cleanup(func() {
		r.ReleaseAll()
		r.Runtimes.Close()
		r.CloseSubscriptions()
		st.Close()
	})
	return r
}
