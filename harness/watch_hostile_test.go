package harness

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// churnScript swaps a folder and a link to a folder outside the workspace with
// renameat2(RENAME_EXCHANGE) for three seconds, as a hostile agent's command would.
const churnScript = `import ctypes, time
f = ctypes.CDLL(None).renameat2
end = time.time() + 3
n = 0
while time.time() < end:
    for _ in range(1000):
        if f(-100, b'race', -100, b'race_alt', 2) != 0:
            raise SystemExit('renameat2 failed: errno %d' % ctypes.get_errno())
        n += 1
print('swapped', n)
`

// TestWorkspaceChurnDoesNotTakeTheHarnessDown runs the hostile churn in a session's sandbox
// while another session's command runs: in fsnotify it dereferenced nil within a second, and
// with the watcher in exo's own process that killed the daemon and every session's turn. The
// harness must go on: the other command completes, the churning session's next command runs,
// and an edit made afterwards is still seen by its (restarted) watcher.
func TestWorkspaceChurnDoesNotTakeTheHarnessDown(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is needed for the renameat2 churn")
	}
	h := openTest(t, Options{SandboxHelper: testHelper()})
	ws, other := t.TempDir(), t.TempDir()
	s, err := h.NewSession(NewSessionOptions{Name: "churn", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	o, err := h.NewSession(NewSessionOptions{Name: "bystander", Workspace: other})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := os.WriteFile(filepath.Join(ws, "churn.py"), []byte(churnScript), 0o644); err != nil {
		t.Fatal(err)
	}
	if res, err := h.UserExec(ctx, s.ID, "mkdir race && ln -s /var/tmp race_alt", ExecOptions{}); err != nil || res.ExitCode != 0 {
		t.Fatalf("set up: %+v %v", res, err)
	}
	if res, err := h.UserExec(ctx, o.ID, "echo ready", ExecOptions{}); err != nil || res.ExitCode != 0 {
		t.Fatalf("bystander: %+v %v", res, err)
	}
	bystander := make(chan error, 1)
	go func() {
		res, err := h.UserExec(ctx, o.ID, "sleep 4; echo bystander-done", ExecOptions{})
		if err == nil && !strings.Contains(res.Output, "bystander-done") {
			err = &execOutputError{res.Output}
		}
		bystander <- err
	}()
	res, err := h.UserExec(ctx, s.ID, "python3 churn.py", ExecOptions{})
	if err != nil || res.ExitCode != 0 || !strings.Contains(res.Output, "swapped") {
		t.Fatalf("churn: %+v %v", res, err)
	}
	t.Logf("churn: %s", strings.TrimSpace(res.Output))
	if err := <-bystander; err != nil {
		t.Fatalf("the other session's command during the churn: %v", err)
	}
	if res, err := h.UserExec(ctx, s.ID, "rm race_alt; rmdir race 2>/dev/null; ls", ExecOptions{}); err != nil || res.ExitCode != 0 {
		t.Fatalf("the churning session's next command: %+v %v", res, err)
	}
	os.WriteFile(filepath.Join(ws, "after.txt"), []byte("typed in an editor\n"), 0o644)
	deadline := time.Now().Add(30 * time.Second)
	for {
		evs, _ := h.Events(s.ID, 0, 0)
		for _, ev := range evs {
			if ev.Type != TypeWorkspaceSnapshot {
				continue
			}
			p, _ := Decode(ev)
			if snap := p.(*WorkspaceSnapshot); snap.External {
				for _, c := range snap.Changed {
					if c.Path == "after.txt" {
						return
					}
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("an edit after the churn was not recorded: the workspace watcher did not come back")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// execOutputError says a command's output lacked what it should print.
type execOutputError struct{ output string }

// Error quotes the output.
func (e *execOutputError) Error() string { return "unexpected output: " + e.output }

// TestRewindBringsBackAFolderReplacedByALink is the repro of a rewind that skipped the files of
// a folder the agent replaced by a link, and said it restored them: the folder comes back with
// its file, the link is gone, and workspace.restored lists the file.
func TestRewindBringsBackAFolderReplacedByALink(t *testing.T) {
	ws, elsewhere := t.TempDir(), t.TempDir()
	h := openTest(t, Options{SandboxHelper: testHelper()})
	s, err := h.NewSession(NewSessionOptions{Name: "relink", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if res, err := h.UserExec(ctx, s.ID, "mkdir d && echo v1 > d/f.txt && echo t1 > top.txt", ExecOptions{}); err != nil || res.ExitCode != 0 {
		t.Fatalf("first: %+v %v", res, err)
	}
	st, _ := h.State(s.ID)
	mark := st.Head
	if res, err := h.UserExec(ctx, s.ID, "rm -rf d && ln -s "+elsewhere+" d && echo t2 > top.txt", ExecOptions{}); err != nil || res.ExitCode != 0 {
		t.Fatalf("second: %+v %v", res, err)
	}
	if _, err := h.Rewind(s.ID, mark); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(ws, "d")); err != nil || !fi.IsDir() {
		t.Fatalf("d after the rewind: %v %v, want a folder", fi, err)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "d", "f.txt")); err != nil || string(b) != "v1\n" {
		t.Fatalf("d/f.txt after the rewind: %q %v", b, err)
	}
	evs, _ := h.Events(s.ID, 0, 0)
	last := evs[len(evs)-1]
	if last.Type != TypeWorkspaceRestored || !strings.Contains(string(last.Data), "d/f.txt") {
		t.Fatalf("last event %s: %s, want workspace.restored listing d/f.txt", last.Type, last.Data)
	}
}
