package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExecSnapshotsAndRewindRestoresFiles runs real commands in a session's PTY shell, checks
// snapshots are recorded, then rewinds and checks the files are back as they were.
func TestExecSnapshotsAndRewindRestoresFiles(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "keep.txt"), []byte("original\n"), 0o644)
	h := openTest(t, Options{SandboxHelper: testHelper()})
	s, err := h.NewSession(NewSessionOptions{Name: "w", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := h.UserExec(ctx, s.ID, "echo hello > a.txt && cd /tmp && export FOO=bar", ExecOptions{})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("exec: %+v %v", res, err)
	}
	if res.Snapshot == nil || len(res.Snapshot.Changed) != 1 || res.Snapshot.Changed[0].Path != "a.txt" {
		t.Fatalf("snapshot after exec: %+v", res.Snapshot)
	}
	st, _ := h.State(s.ID)
	mark := st.Head
	res, err = h.UserExec(ctx, s.ID, "echo $FOO; pwd", ExecOptions{})
	if err != nil || !strings.Contains(res.Output, "bar") || !strings.Contains(res.Output, "/tmp") {
		t.Fatalf("shell state did not persist: %q %v", res.Output, err)
	}
	if _, err := h.UserExec(ctx, s.ID, "cd "+ws+" && rm keep.txt && echo changed > a.txt && echo new > b.txt", ExecOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Rewind(s.ID, mark); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(ws, name))
		if err != nil {
			return "<missing>"
		}
		return string(b)
	}
	if read("keep.txt") != "original\n" || read("a.txt") != "hello\n" || read("b.txt") != "<missing>" {
		t.Fatalf("files after rewind: keep=%q a=%q b=%q", read("keep.txt"), read("a.txt"), read("b.txt"))
	}
	evs, _ := h.Events(s.ID, 0, 0)
	last := evs[len(evs)-1]
	if last.Type != TypeWorkspaceRestored {
		t.Fatalf("last event %s, want workspace.restored", last.Type)
	}
}

// TestForkGetsOwnWorkspaceAtForkPoint forks a session at an earlier event and checks the
// sibling's own working copy holds the files as they were then, independent of the source.
func TestForkGetsOwnWorkspaceAtForkPoint(t *testing.T) {
	ws := t.TempDir()
	h := openTest(t, Options{SandboxHelper: testHelper()})
	s, _ := h.NewSession(NewSessionOptions{Name: "src", Workspace: ws})
	ctx := context.Background()
	h.UserExec(ctx, s.ID, "echo one > f.txt", ExecOptions{})
	st, _ := h.State(s.ID)
	mark := st.Head
	h.UserExec(ctx, s.ID, "echo two > f.txt && echo extra > g.txt", ExecOptions{})
	f, err := h.Fork(s.ID, mark, ForkOptions{Name: "sib"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Workspace == ws || f.Workspace == "" {
		t.Fatalf("fork workspace %q", f.Workspace)
	}
	read := func(dir, name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "<missing>"
		}
		return string(b)
	}
	if read(f.Workspace, "f.txt") != "one\n" || read(f.Workspace, "g.txt") != "<missing>" {
		t.Fatalf("fork files: f=%q g=%q", read(f.Workspace, "f.txt"), read(f.Workspace, "g.txt"))
	}
	if _, err := h.UserExec(ctx, f.ID, "echo fork > f.txt", ExecOptions{}); err != nil {
		t.Fatal(err)
	}
	if read(ws, "f.txt") != "two\n" || read(f.Workspace, "f.txt") != "fork\n" {
		t.Fatalf("siblings share files: src=%q fork=%q", read(ws, "f.txt"), read(f.Workspace, "f.txt"))
	}
	if _, err := h.Rewind(f.ID, mark+1); err != nil {
		t.Fatal(err)
	}
	if read(f.Workspace, "f.txt") != "one\n" {
		t.Fatalf("rewound fork f=%q", read(f.Workspace, "f.txt"))
	}
}

// TestForkBeforeFirstSnapshotGetsBaseline forks at an event older than the first snapshot: the
// sibling's files are the baseline's, not the source's current ones.
func TestForkBeforeFirstSnapshotGetsBaseline(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("base\n"), 0o644)
	h := openTest(t, Options{SandboxHelper: testHelper()})
	s, _ := h.NewSession(NewSessionOptions{Name: "src", Workspace: ws})
	h.Append(s.ID, MustRecord(TypeInvocationReceived, ActorUser, InvocationReceived{Text: "go"}))
	ctx := context.Background()
	h.UserExec(ctx, s.ID, "echo later > a.txt && echo new > b.txt", ExecOptions{})
	f, err := h.Fork(s.ID, 2, ForkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(f.Workspace, "a.txt"))
	if _, err := os.Stat(filepath.Join(f.Workspace, "b.txt")); err == nil || string(a) != "base\n" {
		t.Fatalf("fork at 2 has a.txt=%q and b.txt present=%v", a, err == nil)
	}
}

// TestRewindBeforeFirstSnapshotRestoresBaseline rewinds to an event older than the first
// snapshot: the files go back to the baseline.
func TestRewindBeforeFirstSnapshotRestoresBaseline(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("base\n"), 0o644)
	h := openTest(t, Options{SandboxHelper: testHelper()})
	s, _ := h.NewSession(NewSessionOptions{Name: "src", Workspace: ws})
	h.Append(s.ID, MustRecord(TypeInvocationReceived, ActorUser, InvocationReceived{Text: "go"}))
	h.UserExec(context.Background(), s.ID, "echo later > a.txt && echo new > b.txt", ExecOptions{})
	if _, err := h.Rewind(s.ID, 2); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(ws, "a.txt"))
	if _, err := os.Stat(filepath.Join(ws, "b.txt")); err == nil || string(a) != "base\n" {
		t.Fatalf("rewind to 2: a.txt=%q, b.txt present=%v", a, err == nil)
	}
}

// TestExternalEditsAreRecorded edits a file from outside while the session is idle: the watcher
// records an external snapshot, so a later rewind to a point after the edit restores it.
func TestExternalEditsAreRecorded(t *testing.T) {
	ws := t.TempDir()
	h := openTest(t, Options{SandboxHelper: testHelper()})
	s, _ := h.NewSession(NewSessionOptions{Name: "w", Workspace: ws})
	if _, err := h.UserExec(context.Background(), s.ID, "echo agent > a.txt", ExecOptions{}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("typed in an editor\n"), 0o644)
	deadline := time.Now().Add(10 * time.Second)
	for {
		evs, _ := h.Events(s.ID, 0, 0)
		last := evs[len(evs)-1]
		if last.Type == TypeWorkspaceSnapshot {
			p, _ := Decode(last)
			if ws := p.(*WorkspaceSnapshot); ws.External && len(ws.Changed) == 1 && ws.Changed[0].Path == "notes.txt" {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no external snapshot; last event %s: %s", last.Type, last.Data)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestForkPastHeadIsRefused forks a session with files at an event it does not have: the fork
// is refused (like rewind), not silently taken at the head, and no working copy is left.
func TestForkPastHeadIsRefused(t *testing.T) {
	ws := t.TempDir()
	h := openTest(t, Options{SandboxHelper: testHelper()})
	s, _ := h.NewSession(NewSessionOptions{Name: "src", Workspace: ws})
	h.UserExec(context.Background(), s.ID, "echo one > f.txt", ExecOptions{})
	if _, err := h.Fork(s.ID, 999, ForkOptions{Name: "late"}); !errors.Is(err, ErrBadSeq) {
		t.Fatalf("fork at 999: %v, want ErrBadSeq", err)
	}
	if all, _ := h.Sessions(); len(all) != 1 {
		t.Fatalf("%d sessions after a refused fork", len(all))
	}
	if left, _ := os.ReadDir(filepath.Join(h.Home(), "workspaces")); len(left) != 0 {
		t.Fatalf("working copies left: %v", left)
	}
}
