package executors

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/executor"
	"exo/sandbox"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

func TestUnknownExecutorIsRefused(t *testing.T) {
	h, err := harness.Open(t.TempDir(), harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := Open(h, "nope", Options{}); err == nil || !strings.Contains(err.Error(), "claude-code") {
		t.Fatalf("err %v", err)
	}
}

func TestSwitchingBackToExosExecutorIsRecorded(t *testing.T) {
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	script, _ := filepath.Abs(filepath.Join("..", "demo", "demo.yaml"))
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "demo", Provider: "scripted", BaseURL: script}); err != nil {
		t.Fatal(err)
	}
	s, err := h.NewSession(harness.NewSessionOptions{Name: "t", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Append(s.ID, harness.MustRecord(harness.TypeExecutorSelected, harness.ActorUser, harness.ExecutorSelected{Name: "claude-code"})); err != nil {
		t.Fatal(err)
	}
	if got := ForSession(h, s.ID, ""); got != "claude-code" {
		t.Fatalf("executor in force %q", got)
	}
	x, err := Open(h, ForSession(h, s.ID, "default"), Options{Exec: executor.Options{Headless: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if _, err := x.Prompt(context.Background(), s.ID, "write me a hello script", "test"); err != nil {
		t.Fatal(err)
	}
	st, _ := h.State(s.ID)
	if st.Executor != Default || ForSession(h, s.ID, "") != Default {
		t.Fatalf("executor in force after the switch: %q", st.Executor)
	}
}

func TestProbeListsEveryExecutor(t *testing.T) {
	var names []string
	for _, in := range Probe() {
		names = append(names, in.Name)
		if !in.Usable && in.Problem == "" {
			t.Fatalf("%s unusable without a reason", in.Name)
		}
	}
	got := strings.Join(names, " ")
	if !strings.HasPrefix(got, "default acp:") || !strings.HasSuffix(got, "claude-code codex") {
		t.Fatalf("probed %v", names)
	}
}

func TestCheckSaysWhyAnExecutorCannotRun(t *testing.T) {
	if in, err := Check("acp:/bin/sh -c true"); err != nil || !in.Usable || in.Binary != "/bin/sh" {
		t.Fatalf("acp:/bin/sh: %+v %v", in, err)
	}
	if _, err := Check("acp:exo-no-such-agent-here"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("a missing ACP agent: %v", err)
	}
	if _, err := Check("acp:"); err == nil {
		t.Fatal("acp: without a command was accepted")
	}
	if _, err := Check("cursor"); err == nil || !strings.Contains(err.Error(), "unknown executor") {
		t.Fatalf("an unknown executor: %v", err)
	}
	if in, err := Check(""); err != nil || in.Name != Default {
		t.Fatalf("default: %+v %v", in, err)
	}
}
