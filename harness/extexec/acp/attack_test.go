package acp

import (
	"context"
	"errors"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/extexec"
	"exo/harness/extexec/exectest"
	"exo/harness/extexec/modeltest"
	"exo/sandbox"
)

// TestAgentRefusedWhereUnconfinable: on a machine without mount namespaces an ACP agent (it acts
// itself) is refused with the reason and nothing starts; with the user's consent it runs, and
// executor.started says plainly what is not enforced.
func TestAgentRefusedWhereUnconfinable(t *testing.T) {
	caps := sandbox.Probe()
	caps.MountNS, caps.PidNS = false, false
	f := openFixture(t, t.TempDir(), &modeltest.Script{Prompts: []modeltest.Prompt{{Turns: []modeltest.Turn{{Text: "Hello."}}}}}, harness.Options{Capabilities: &caps})
	bin := tinyAgent(t)
	x := f.executor(t, Options{Command: []string{bin}})
	_, err := x.Prompt(context.Background(), f.s.ID, "say hello", "test")
	if !errors.Is(err, extexec.ErrUnconfined) || !strings.Contains(err.Error(), "hiding exo's home") {
		t.Fatalf("an ACP agent where exo's home cannot be hidden: %v", err)
	}
	if x.Session(f.s.ID) != nil || strings.Contains(exectest.Types(f.events(t, f.s.ID)), "invocation.received") {
		t.Fatalf("a refused agent left traces: %s", exectest.Types(f.events(t, f.s.ID)))
	}
	x = f.executor(t, Options{Command: []string{bin}, AllowUnconfined: true})
	res, err := x.Prompt(context.Background(), f.s.ID, "say hello", "test")
	okResult(t, res, err)
	started := exectest.Payloads[harness.ExecutorStarted](t, f.events(t, f.s.ID), harness.TypeExecutorStarted)
	if len(started) != 1 || !started[0].Allowed || !strings.Contains(strings.Join(started[0].Unconfined, ";"), "hiding exo's home") {
		t.Fatalf("executor.started %+v", started)
	}
}
