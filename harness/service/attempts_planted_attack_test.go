package service

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/api"
	"exo/sandbox"
)

// plantScript is an attempt's hostile agent: in its working copy it plants links to a folder
// and a file outside the workspace, swaps the worktree's .git file for a repository of its own
// whose config runs a command (core.fsmonitor, core.hooksPath) and whose hooks do, so that the
// user's check (git status, git commit, a report written into a folder) or keeping the attempt
// writes outside.
const plantScript = `name: planter
turns:
  - tool_calls:
      - name: bash
        args: {command: "ln -s OUT out && ln -s OUT/victim.txt victim-link && rm -f .git && git init -q && git config user.email a@b && git config user.name a && git config core.fsmonitor 'echo pwned > OUT/fsmonitor; false' && git config core.hooksPath hooks && mkdir -p hooks && printf '#!/bin/sh\\necho pwned > OUT/hooked\\n' > hooks/pre-commit && cp hooks/pre-commit hooks/post-checkout && cp hooks/pre-commit .git/hooks/pre-commit && chmod +x hooks/* .git/hooks/* && echo planted"}
  - text: planted
`

// TestPlantedLinksAndHooksStayInTheWorkspace: an attempt's agent plants links out of its working
// copy and git config and hooks that run commands; the set's check (run in the attempt's sandbox)
// and keeping the attempt (snapshot, then restore into the original's workspace) must touch
// nothing outside: the outside folder is unchanged, the original repository's .git (config,
// hooks, HEAD) is the same, and the kept links are links, never followed.
func TestPlantedLinksAndHooksStayInTheWorkspace(t *testing.T) {
	t.Parallel()
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if c := h.Capabilities(); c.LandlockABI == 0 && !c.MountNS {
		t.Skip("this host confines no sandbox's writes (no Landlock, no mount namespace)")
	}
	// Outside the workspace and outside /tmp (a sandbox's /tmp is its own): the package folder.
	out, err := os.MkdirTemp(".", "outside-")
	if err != nil {
		t.Fatal(err)
	}
	if out, err = filepath.Abs(out); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(out) })
	if err := os.WriteFile(filepath.Join(out, "victim.txt"), []byte("untouched\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "planter.yaml")
	if err := os.WriteFile(script, []byte(strings.ReplaceAll(plantScript, "OUT", out)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "planter", Provider: "scripted", BaseURL: script}); err != nil {
		t.Fatal(err)
	}
	ws := plantedRepo(t)
	gitBefore := gitState(t, ws)
	s, err := h.NewSession(harness.NewSessionOptions{Name: "victim", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	svc := New(h, Options{})
	t.Cleanup(func() { svc.Close() })
	ctx := context.Background()
	check := "git status >/dev/null 2>&1; git commit -qam x >/dev/null 2>&1; mkdir -p out && echo report > out/report.txt; echo more >> victim-link"
	set, err := svc.StartAttempts(ctx, api.AttemptsRequest{Session: s.ID, Models: []string{"planter"}, Check: check, AutoApprove: true, Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	set = waitSetDone(t, svc, h, set.ID)
	r := set.Rows[0]
	if r.Status != api.AttemptDone || r.Check == nil {
		t.Fatalf("the attempt did not run to its check: %+v", r)
	}
	if r.Check.ExitCode == 0 {
		t.Errorf("the check wrote through the planted links (exit 0): %q", r.Check.Output)
	}
	outsideUnchanged(t, out, "after the check")
	if _, err := svc.KeepAttempt(ctx, api.KeepRequest{Attempt: r.Session, Archive: true}); err != nil {
		t.Fatal(err)
	}
	outsideUnchanged(t, out, "after keep")
	if after := gitState(t, ws); after != gitBefore {
		t.Errorf("keep changed the original repository's git state:\n%s\nwas\n%s", after, gitBefore)
	}
	for _, l := range []string{"out", "victim-link"} {
		fi, err := os.Lstat(filepath.Join(ws, l))
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("kept %s is not the attempt's link: %v %v", l, fi, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(ws, "hooks", "post-checkout")); err != nil || !strings.Contains(string(b), "pwned") {
		t.Errorf("the attempt's own files were not kept: %q %v", b, err)
	}
}

// plantedRepo makes a git repository with one commit.
func plantedRepo(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "main.txt"), []byte("main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"-c", "user.email=e@x", "-c", "user.name=e", "commit", "-qm", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return ws
}

// gitState is what a planted file could change in a repository's .git: its config, HEAD and
// the hooks folder's listing.
func gitState(t *testing.T, ws string) string {
	t.Helper()
	var b strings.Builder
	for _, f := range []string{"config", "HEAD"} {
		c, err := os.ReadFile(filepath.Join(ws, ".git", f))
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(f + ":\n" + string(c))
	}
	hooks, _ := os.ReadDir(filepath.Join(ws, ".git", "hooks"))
	for _, e := range hooks {
		b.WriteString("hook " + e.Name() + "\n")
	}
	return b.String()
}

// outsideUnchanged fails unless the outside folder holds only victim.txt, untouched.
func outsideUnchanged(t *testing.T, out, when string) {
	t.Helper()
	es, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	if len(names) != 1 || names[0] != "victim.txt" {
		t.Errorf("%s: the outside folder holds %v", when, names)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "victim.txt")); string(b) != "untouched\n" {
		t.Errorf("%s: the outside file reads %q", when, b)
	}
}

// waitSetDone waits (on the log, never on time) for every member of a set to end.
func waitSetDone(t *testing.T, svc *Service, h *harness.Harness, id string) api.AttemptSet {
	t.Helper()
	ch, stop := h.SubscribeChanges(256)
	defer stop()
	for {
		set, err := svc.AttemptSet(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if set.Done() {
			return set
		}
		<-ch
	}
}
