package claude

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"exo/harness"
	"exo/harness/extexec/exectest"
)

func TestNativeToolsApprovedByExoAndSnapshotted(t *testing.T) {
	outside := "/tmp/exo-outside-write-test.txt"
	os.Remove(outside)
	f := newFixture(t)
	x := f.executor(t, Options{NativeTools: true})
	res, err := x.Prompt(context.Background(), f.s.ID, "native edit please", "test")
	okResult(t, res, err)
	if b, err := os.ReadFile(filepath.Join(f.ws, "native.txt")); err != nil || string(b) != "native\n" {
		t.Fatalf("claude's own Bash did not run: %q %v", b, err)
	}
	if _, err := os.Stat(outside); !os.IsNotExist(err) {
		t.Fatalf("the write outside the workspace happened: %v", err)
	}
	evs := f.events(t, f.s.ID)
	sel := exectest.Payloads[harness.ExecutorSelected](t, evs, harness.TypeExecutorSelected)
	if len(sel) != 1 || !sel[0].NativeTools || sel[0].Confinement == "" {
		t.Fatalf("executor.selected %+v", sel)
	}
	started := exectest.Payloads[harness.ToolStarted](t, evs, harness.TypeToolStarted)
	done := exectest.Payloads[harness.ToolCompleted](t, evs, harness.TypeToolCompleted)
	if len(started) != 2 || started[0].Tool != "Bash" || started[1].Tool != "Write" || len(done) != 2 {
		t.Fatalf("tool events: %s", exectest.Types(evs))
	}
	if done[0].IsError || !done[1].IsError || !strings.Contains(done[1].Output, "outside the workspace") {
		t.Fatalf("results %+v / %+v", done[0], done[1])
	}
	snaps := exectest.Payloads[harness.WorkspaceSnapshot](t, evs, harness.TypeWorkspaceSnapshot)
	found := false
	for _, s := range snaps {
		for _, c := range s.Changed {
			found = found || c.Path == "native.txt"
		}
	}
	if !found {
		t.Fatalf("native.txt was not snapshotted: %s", exectest.Types(evs))
	}
	if len(exectest.Payloads[harness.PolicyViolation](t, evs, harness.TypePolicyViolation)) != 1 {
		t.Fatalf("no policy.violation for the refused write: %s", exectest.Types(evs))
	}
	if body := lastBody(t, f); !bytes.Contains(body, []byte("outside the workspace")) {
		t.Fatalf("claude was not told why: %s", body)
	}
	// Rewind to before the turn brings the files back.
	if _, err := f.h.Rewind(f.s.ID, seqOf(t, f, f.s.ID, harness.TypeExecutorSelected)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "native.txt")); !os.IsNotExist(err) {
		t.Fatalf("rewind left native.txt: %v", err)
	}
}

func TestNativeBashCannotWriteOutsideTheWorkspace(t *testing.T) {
	lockAcrossCheckouts(t, "/var/tmp/exo-native-test.lock") // the script names fixed paths; other checkouts run this test too
	escape := "/var/tmp/exo-native-escape-test.txt"
	os.Remove(escape)
	home := "/var/tmp/exo-native-home-test" // outside /tmp, which the sandbox replaces anyway
	os.RemoveAll(home)
	t.Cleanup(func() { os.RemoveAll(home) })
	f := newFixtureAt(t, home)
	if caps := f.h.Capabilities(); caps.LandlockABI == 0 && !caps.MountNS {
		t.Skip("neither landlock nor mount namespaces here: the claude process cannot be confined")
	}
	x := f.executor(t, Options{NativeTools: true})
	res, err := x.Prompt(context.Background(), f.s.ID, "native escape please", "test")
	okResult(t, res, err)
	if _, err := os.Stat(escape); !os.IsNotExist(err) {
		os.Remove(escape)
		t.Fatalf("claude's own Bash wrote outside the workspace: %v", err)
	}
	done := exectest.Payloads[harness.ToolCompleted](t, f.events(t, f.s.ID), harness.TypeToolCompleted)
	t.Logf("the blocked write: %q", done[0].Output)
	if len(done) != 1 || !strings.Contains(done[0].Output, "ermission denied") && !strings.Contains(done[0].Output, "ead-only") {
		t.Fatalf("the blocked write: %+v", done)
	}
	// Exo's own files are out of its sight.
	res, err = x.Prompt(context.Background(), f.s.ID, "native peek please", "test")
	okResult(t, res, err)
	done = exectest.Payloads[harness.ToolCompleted](t, f.events(t, f.s.ID), harness.TypeToolCompleted)
	if !f.h.Capabilities().MountNS {
		return // without a mount namespace exo's files cannot be hidden (the confinement says so)
	}
	out := done[len(done)-1].Output
	if !strings.Contains(out, "exo-native-home-test/secret.key: No such file") || !strings.Contains(out, "exo-native-home-test/exo.db: No such file") {
		t.Fatalf("claude's Bash reads exo's home: %q", out)
	}
}

// lockAcrossCheckouts holds an exclusive flock on path until the test ends, so runs of this test
// from several checkouts on one machine do not share its fixed paths at the same time.
func lockAcrossCheckouts(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
}

// executor.selected is recorded whenever the executor, its native tool mode or its confinement
// changes, not only its name: the same claude-code with and without its own tools are two
// selections, and the same mode again is none.
func TestExecutorSelectedRecordsNativeModeChanges(t *testing.T) {
	f := newFixture(t)
	plain, native := f.executor(t, Options{}), f.executor(t, Options{NativeTools: true, AllowUnconfined: true})
	for _, x := range []*Executor{plain, plain, native, plain} {
		res, err := x.Prompt(context.Background(), f.s.ID, "say hello", "test")
		okResult(t, res, err)
	}
	sel := exectest.Payloads[harness.ExecutorSelected](t, f.events(t, f.s.ID), harness.TypeExecutorSelected)
	if len(sel) != 3 || sel[0].NativeTools || !sel[1].NativeTools || sel[2].NativeTools || sel[1].Confinement == "" {
		t.Fatalf("executor.selected %+v", sel)
	}
	if st, _ := f.h.State(f.s.ID); st.ExecutorNative || st.ExecutorConfinement != sel[2].Confinement {
		t.Fatalf("state native=%v confinement %q", st.ExecutorNative, st.ExecutorConfinement)
	}
}
