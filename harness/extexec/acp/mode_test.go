package acp

import (
	"context"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/extexec/exectest"
)

func TestOwnAgentPutInTheModeThatAsks(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{Command: []string{tinyAgent(t)}})
	res, err := x.Prompt(context.Background(), f.s.ID, "do the tiny thing", "test")
	okResult(t, res, err)
	evs := f.events(t, f.s.ID)
	ms := exectest.Payloads[harness.ExecutorMode](t, evs, harness.TypeExecutorMode)
	if len(ms) != 1 || ms[0].Mode != "careful" || ms[0].By != harness.ModeByExo || !ms[0].Asks || strings.Join(ms[0].Available, " ") != "auto careful plan" {
		t.Fatalf("executor.mode %+v", ms)
	}
	if ty := exectest.Types(evs); strings.Index(ty, "executor.selected") > strings.Index(ty, "executor.mode") {
		t.Fatalf("the mode is recorded before the executor: %s", ty)
	}
	st, _ := f.h.State(f.s.ID)
	if st.AgentMode != "careful" || st.ExecutorMode != "" {
		t.Fatalf("state: agent mode %q, user's %q", st.AgentMode, st.ExecutorMode)
	}
}

func TestOwnAgentModeChosenByTheUser(t *testing.T) {
	f := newFixture(t)
	bin := tinyAgent(t)
	bad := f.executor(t, Options{Command: []string{bin}, Mode: "yolo"})
	if _, err := bad.Prompt(context.Background(), f.s.ID, "do the tiny thing", "test"); err == nil || !strings.Contains(err.Error(), `no mode "yolo"; it offers auto, careful, plan`) {
		t.Fatalf("an unknown mode: %v", err)
	}
	x := f.executor(t, Options{Command: []string{bin}, Mode: "auto"})
	res, err := x.Prompt(context.Background(), f.s.ID, "do the tiny thing", "test")
	okResult(t, res, err)
	ms := exectest.Payloads[harness.ExecutorMode](t, f.events(t, f.s.ID), harness.TypeExecutorMode)
	if len(ms) != 1 || ms[0].Mode != "auto" || ms[0].By != harness.ModeByUser || ms[0].Asks {
		t.Fatalf("executor.mode %+v", ms)
	}
	for _, e := range f.events(t, f.s.ID) {
		if e.Type == harness.TypeExecutorMode && !strings.HasSuffix(harness.Summary(e), "mode auto (Auto), chosen by user; the agent may act without asking exo") {
			t.Fatalf("summary %q", harness.Summary(e))
		}
	}
	st, _ := f.h.State(f.s.ID)
	if st.ExecutorMode != "auto" {
		t.Fatalf("the user's mode is not the session's: %q", st.ExecutorMode)
	}
}

func TestOwnAgentUpdatesBesideTheConversation(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{Command: []string{tinyAgent(t)}})
	for i := 0; i < 2; i++ { // the same commands twice are recorded once
		res, err := x.Prompt(context.Background(), f.s.ID, "updates only please", "test")
		okResult(t, res, err)
	}
	evs := f.events(t, f.s.ID)
	ms := exectest.Payloads[harness.ExecutorMode](t, evs, harness.TypeExecutorMode)
	if len(ms) != 2 || ms[1].Mode != "plan" || ms[1].By != harness.ModeByAgent || ms[1].Name != "Plan" {
		t.Fatalf("executor.mode %+v", ms)
	}
	cmds := exectest.Payloads[harness.AgentCommands](t, evs, harness.TypeAgentCommands)
	if len(cmds) != 1 || len(cmds[0].Commands) != 2 || cmds[0].Commands[0].Name != "review" {
		t.Fatalf("agent.commands %+v", cmds)
	}
	plans := exectest.Payloads[harness.AgentPlan](t, evs, harness.TypeAgentPlan)
	if len(plans) != 2 || len(plans[0].Steps) != 3 || plans[0].Steps[1].Status != "in_progress" {
		t.Fatalf("agent.plan %+v", plans)
	}
	us := exectest.Payloads[harness.AgentUsage](t, evs, harness.TypeAgentUsage)
	if len(us) != 2 || us[0].Context != 3117 || us[0].Window != 200000 || us[0].Cost != 0.04723 {
		t.Fatalf("agent.usage %+v", us)
	}
	st, _ := f.h.State(f.s.ID)
	var plan string
	for _, it := range st.Items {
		if it.Kind == harness.ItemPlan {
			plan = it.Text
		}
	}
	if plan != "[x] Read the code\n[~] Fix the bug\n[ ] Run the tests" || st.AgentContext != 3117 || st.AgentCost != 0.04723 {
		t.Fatalf("state: plan %q, context %d, cost %v", plan, st.AgentContext, st.AgentCost)
	}
}
