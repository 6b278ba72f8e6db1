package acp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/exectest"
	"exo/harness/extexec/modeltest"
	"exo/sandbox"
)

// codexACP finds codex-acp or skips the test saying why (fails when EXO_REQUIRE_ACP is set).
func codexACP(t testing.TB) string {
	t.Helper()
	bin, err := FindCommand("codex-acp")
	if err != nil {
		if os.Getenv("EXO_REQUIRE_ACP") != "" {
			t.Fatalf("EXO_REQUIRE_ACP is set but: %v", err)
		}
		t.Skipf("codex-acp is needed (.ci/run installs @agentclientprotocol/codex-acp@%s): %v", CodexACPVersion, err)
	}
	return bin
}

// codexFixture is a harness with an OpenAI model served by a scripted Responses server.
func codexFixture(t *testing.T) (*fixture, *modeltest.Responses) {
	t.Helper()
	sc, err := modeltest.LoadScript(filepath.Join("testdata", "codex_turns.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	srv := modeltest.NewResponses(sc)
	t.Cleanup(srv.Close)
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	h.SetSecret("openai-key", []byte(sealedKey))
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "gpt", Provider: "openai", ModelID: "gpt-5.5", BaseURL: srv.BaseURL(), Secret: "openai-key"}); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	s, err := h.NewSession(harness.NewSessionOptions{Name: "cx", Workspace: ws, Model: "gpt"})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{h: h, s: s, ws: ws}, srv
}

// codex-acp offers read-only, workspace-write, agent (its default: Codex's reviewer decides) and
// agent-full-access; exo picks read-only, where Codex asks before it edits, and its permission
// request reaches exo's approval policy: denied, then allowed.
func TestCodexAdapterAsksInReadOnly(t *testing.T) {
	f, srv := codexFixture(t)
	x := f.executor(t, Options{Command: []string{codexACP(t)}, Exec: executor.Options{
		Approvals: map[string]string{"edit_file": "ask"}, ApprovalTimeout: time.Minute}})
	answerApprovals(t, f, executor.DecisionDeny, executor.DecisionOnce)
	res, err := x.Prompt(context.Background(), f.s.ID, "native patch please", "test")
	okResult(t, res, err) // codex-acp's refusal stops Codex's turn: an end, not the user's cancel
	if _, err := os.Stat(filepath.Join(f.ws, "y.txt")); !os.IsNotExist(err) {
		t.Fatalf("the denied patch was applied: %v", err)
	}
	res, err = x.Prompt(context.Background(), f.s.ID, "native patch please, again", "test")
	okResult(t, res, err)
	if b, err := os.ReadFile(filepath.Join(f.ws, "y.txt")); err != nil || string(b) != "hello from codex-acp\n" {
		t.Fatalf("y.txt: %q %v (events %s)", b, err, exectest.Types(f.events(t, f.s.ID)))
	}
	evs := f.events(t, f.s.ID)
	ms := exectest.Payloads[harness.ExecutorMode](t, evs, harness.TypeExecutorMode)
	if len(ms) == 0 || ms[0].Mode != "read-only" || ms[0].By != harness.ModeByExo || !ms[0].Asks ||
		strings.Join(ms[0].Available, " ") != "read-only workspace-write agent agent-full-access" {
		t.Fatalf("executor.mode %+v", ms)
	}
	for _, a := range exectest.Payloads[harness.ApprovalRequested](t, evs, harness.TypeApprovalRequested) {
		if !strings.Contains(string(a.Args)+a.Summary, "y.txt") {
			t.Errorf("the approval does not say which file: %+v", a)
		}
	}
	ar := exectest.Payloads[harness.ApprovalResolved](t, evs, harness.TypeApprovalResolved)
	if len(ar) != 2 || ar[0].Decision != "deny" || ar[1].Decision != "once" {
		t.Fatalf("approvals %+v\n%s", ar, exectest.Types(evs))
	}
	for i, r := range srv.Calls() {
		noKey(t, fmt.Sprintf("request body %d", i), r.Body)
	}
	filepath.WalkDir(x.Session(f.s.ID).Dirs.Root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			noKey(t, p, b)
		}
		return nil
	})
}
