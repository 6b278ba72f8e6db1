package claude

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/extexec/exectest"
	"exo/harness/extexec/modeltest"
)

// stubClaude builds testdata/stubclaude outside /tmp (which the agent's sandbox replaces).
func stubClaude(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "exo-stubclaude-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "claude")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/stubclaude").CombinedOutput(); err != nil {
		t.Fatalf("build stubclaude: %v\n%s", err, out)
	}
	return bin
}

// stubExecutor opens the executor on the stub with its flags.
func stubExecutor(t *testing.T, f *fixture, bin string, o Options, flags ...string) *Executor {
	t.Helper()
	o.Binary, o.ExtraArgs, o.Exec.Headless = bin, flags, true
	x, err := New(f.h, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// TestInitializeAwaitedBeforeThePrompt: a Claude that takes 1.5 s to answer exo's initialize
// gets the first prompt only after answering it, and that initialize registered exo's
// PreToolUse hook (the stub fails the turn otherwise).
func TestInitializeAwaitedBeforeThePrompt(t *testing.T) {
	bin := stubClaude(t)
	f := scriptedFixture(t, t.TempDir(), "", &modeltest.Script{Prompts: []modeltest.Prompt{{Turns: []modeltest.Turn{{Text: "Hello."}}}}}, harness.Options{})
	x := stubExecutor(t, f, bin, Options{}, "--stub-init-delay=1500ms")
	res, err := x.Prompt(context.Background(), f.s.ID, "hello", "test")
	okResult(t, res, err)
	if res.Response != "ready with exo's hook" {
		t.Fatalf("response %q", res.Response)
	}
}

// TestInitializeUnansweredIsAClearError: a Claude that never answers exo's initialize, or exits
// before answering, fails the prompt with an error saying so (and its error output), before
// anything is recorded or sent, and leaves no process behind.
func TestInitializeUnansweredIsAClearError(t *testing.T) {
	bin := stubClaude(t)
	f := scriptedFixture(t, t.TempDir(), "", &modeltest.Script{Prompts: []modeltest.Prompt{{Turns: []modeltest.Turn{{Text: "Hello."}}}}}, harness.Options{})
	for _, c := range []struct{ flag, want string }{
		{"--stub-init=never", "did not answer initialize within 2s"},
		{"--stub-init=exit", "stubclaude: exiting before initialize"},
	} {
		x := stubExecutor(t, f, bin, Options{InitTimeout: 2 * time.Second}, c.flag)
		_, err := x.Prompt(context.Background(), f.s.ID, "hello", "test")
		if err == nil || !strings.Contains(err.Error(), "claude did not take exo's initialize") || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: %v", c.flag, err)
		}
		if x.Session(f.s.ID) != nil || strings.Contains(exectest.Types(f.events(t, f.s.ID)), "invocation.received") {
			t.Fatalf("%s: a claude that took no initialize left traces: %s", c.flag, exectest.Types(f.events(t, f.s.ID)))
		}
	}
}
