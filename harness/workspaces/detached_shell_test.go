package workspaces

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"exo/harness/sessions"
)

// TestShellDetachedListedAndEndedWithTurn: what an agent's command detaches is listed by `exo
// task ls` (DetachedTasks), can be killed by its id, and ends with the turn; what a user's
// command detaches ends with it.
func TestShellDetachedListedAndEndedWithTurn(t *testing.T) {
	h := openTest(t)
	s, err := h.NewSession(sessions.NewSessionOptions{Name: "d", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []string{"setsid sleep 1004 &", "nohup sleep 1005 >/dev/null 2>&1 &"} {
		if res, err := h.Exec(ctx, s.ID, c, ExecOptions{}); err != nil || res.Detached == "" {
			t.Fatalf("%s: %+v %v", c, res, err)
		}
	}
	ts, _ := h.DetachedTasks()
	var ids []string
	for _, tk := range ts {
		if tk.Session == s.ID && !tk.Done && tk.Pid > 0 && strings.Contains(tk.Command, "sleep 100") {
			ids = append(ids, tk.ID)
		}
	}
	if len(ids) != 2 {
		t.Fatalf("listed: %+v", ts)
	}
	if err := h.KillDetached(ids[0]); err != nil {
		t.Fatal(err)
	}
	if err := h.EndTurn(s.ID); err != nil {
		t.Fatal(err)
	}
	if out, _ := exec.Command("pgrep", "-f", "sleep 100[45]").Output(); len(out) > 0 {
		t.Fatalf("detached sleeps survived the turn: %s", out)
	}
	res, err := h.UserExec(ctx, s.ID, "sleep 1006 &", ExecOptions{})
	if err != nil || !strings.Contains(strings.Join(res.Notes, " "), "killed with it") {
		t.Fatalf("user exec: %+v %v", res, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		out, _ := exec.Command("pgrep", "-f", "sleep 1006").Output()
		if len(out) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a user's detached sleep survived its command: %s", out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestForkBombFromUserExec is issue 28's repro (`exo exec S -- 'b(){ b|b& }; b'`) with the caps
// fitted to this machine: the bomb ends with its command and the next command forks.
func TestForkBombFromUserExec(t *testing.T) {
	h := openTest(t)
	s, err := h.NewSession(sessions.NewSessionOptions{Name: "b", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	start := time.Now()
	if _, err := h.UserExec(ctx, s.ID, "b(){ b|b& }; b", ExecOptions{Timeout: 30 * time.Second}); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	res, err := h.UserExec(ctx, s.ID, "for i in 1 2 3 4 5 6 7 8; do (true) & done; wait; echo forked", ExecOptions{Timeout: 30 * time.Second})
	if err != nil || !strings.Contains(res.Output, "forked") || res.ExitCode != 0 {
		t.Fatalf("the next command could not fork: %+v %v", res, err)
	}
	ts, _ := h.DetachedTasks()
	for _, tk := range ts {
		if tk.Session == s.ID && !tk.Done {
			t.Fatalf("the bomb is still listed as running: %+v", tk)
		}
	}
	t.Logf("bomb command and its kill: %s; next command: %s", took.Round(time.Millisecond), res.Duration.Round(time.Millisecond))
}
