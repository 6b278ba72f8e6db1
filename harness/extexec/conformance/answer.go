package conformance

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/exectest"
)

// Answer: a prompt is answered; the answer streams live (OnDelta), model.completed records it,
// the session is idle after, the sealed key reached the model server in the authentication
// header of every call and in no body, and the agent's environment holds neither the key nor
// IS_SANDBOX (which Claude Code rejects).
func Answer(t *testing.T, s *Suite) {
	f := s.Fixture(t, "", harness.Options{})
	var mu sync.Mutex
	var streamed strings.Builder
	x := f.Open(t, Options{Exec: executor.Options{OnDelta: func(_, d string) { mu.Lock(); streamed.WriteString(d); mu.Unlock() }}})
	const marker = promptHello + " (answer)"
	res := f.prompt(t, x, f.Sess.ID, marker)
	if !strings.Contains(res.Response, answerHello) {
		t.Fatalf("response %q", res.Response)
	}
	mu.Lock()
	got := streamed.String()
	mu.Unlock()
	if !strings.Contains(got, answerHello) {
		t.Fatalf("streamed %q", got)
	}
	evs := f.events(t, f.Sess.ID)
	recorded := false
	for _, c := range exectest.Payloads[harness.ModelCompleted](t, evs, harness.TypeModelCompleted) {
		recorded = recorded || strings.Contains(c.Text, answerHello)
	}
	if !recorded {
		t.Fatalf("no model.completed holds the answer: %s", exectest.Types(evs))
	}
	if st, _ := f.H.State(f.Sess.ID); st.Status != harness.StatusIdle {
		t.Fatalf("status %s after the turn", st.Status)
	}
	if x.Runner != nil {
		environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", exectest.Pid(x.Runner, f.Sess.ID)))
		if err != nil {
			t.Fatalf("the agent's environment: %v", err)
		}
		if bytes.Contains(environ, []byte(s.Key)) || bytes.Contains(environ, []byte("IS_SANDBOX")) {
			t.Fatalf("the agent's environment holds the sealed key or IS_SANDBOX: %q", environ)
		}
	}
	calls := s.requestsWith(marker)
	if len(calls) == 0 {
		t.Fatal("the model server got no call of the turn")
	}
	for i, q := range calls {
		if k := s.srv.key(q); k != s.Key {
			t.Errorf("call %d (%s) presented key %q, not the sealed one", i, q.Path, k)
		}
		if bytes.Contains(q.Body, []byte(s.Key)) {
			t.Errorf("call %d's body holds the sealed key", i)
		}
	}
}

// ToolThroughExo: the model calls exo's bash; the command runs in exo's sandbox in the
// workspace, its output goes back to the model, and every step is an event (tool.started and
// tool.completed of bash between the two model calls, exit code 0).
func ToolThroughExo(t *testing.T, s *Suite) {
	f := s.Fixture(t, "", harness.Options{})
	x := f.Open(t, Options{})
	res := f.prompt(t, x, f.Sess.ID, promptFile)
	if b, err := os.ReadFile(filepath.Join(f.WS, "x.txt")); err != nil || string(b) != "hi\n" {
		t.Fatalf("x.txt: %q %v", b, err)
	}
	if res.ToolCalls != 1 || !strings.Contains(res.Response, answerFile) {
		t.Fatalf("result %+v", res)
	}
	evs := f.events(t, f.Sess.ID)
	order := exectest.Types(evs)
	first := strings.Index(order, harness.TypeModelCompleted)
	started := strings.Index(order, harness.TypeToolStarted)
	done := strings.Index(order, harness.TypeToolCompleted)
	second := strings.LastIndex(order, harness.TypeModelCompleted)
	if first < 0 || started < first || done < started || second < done {
		t.Fatalf("events %s", order)
	}
	tc := exectest.Payloads[harness.ToolCompleted](t, evs, harness.TypeToolCompleted)
	if len(tc) != 1 || tc[0].Tool != "bash" || tc[0].ExitCode == nil || *tc[0].ExitCode != 0 || !strings.Contains(tc[0].Output, "hi") {
		t.Fatalf("tool.completed %+v", tc)
	}
	// The tool ran under the executor's name: the one selected for the session (exo's own
	// executor's is "default").
	st, _ := f.H.State(f.Sess.ID)
	name := st.Executor
	if name == "" && !s.A.External {
		name = "default"
	}
	for _, sel := range exectest.Payloads[harness.ExecutorSelected](t, evs, harness.TypeExecutorSelected) {
		if sel.Name != name {
			t.Fatalf("executor.selected %q, state's executor %q", sel.Name, name)
		}
	}
	for _, e := range evs {
		if e.Type == harness.TypeToolStarted && e.Actor != harness.ExecutorActor(name) {
			t.Fatalf("tool.started by %q, not %q", e.Actor, harness.ExecutorActor(name))
		}
	}
	snapped := false
	for _, sn := range exectest.Payloads[harness.WorkspaceSnapshot](t, evs, harness.TypeWorkspaceSnapshot) {
		for _, c := range sn.Changed {
			snapped = snapped || c.Path == "x.txt"
		}
	}
	if !snapped {
		t.Fatalf("no workspace.snapshot of x.txt: %s", order)
	}
	if st.Status != harness.StatusIdle || s.A.External && name == "" {
		t.Fatalf("state: executor %q, status %s", st.Executor, st.Status)
	}
	if s.A.External && !strings.Contains(order, harness.TypeExecutorSelected+" "+harness.TypeExecutorStarted) {
		t.Fatalf("events %s", order)
	}
	back := false
	for _, q := range s.requestsWith(promptFile) {
		back = back || bytes.Contains(q.Body, []byte("Running a command.")) && bytes.Contains(q.Body, []byte("hi"))
	}
	if !back {
		t.Fatal("the command's output did not reach the model")
	}
}

// Approval: with exo's policy asking before bash, the user's deny refuses the call (nothing runs,
// the model is told) and the user's allow on the next prompt runs it.
func Approval(t *testing.T, s *Suite) {
	f := s.Fixture(t, "", harness.Options{})
	x := f.Open(t, Options{Exec: executor.Options{Approvals: map[string]string{"bash": "ask"}, ApprovalTimeout: time.Minute}})
	f.answerApprovals(t, f.Sess.ID, executor.DecisionDeny, executor.DecisionOnce)
	f.prompt(t, x, f.Sess.ID, promptAsk)
	if _, err := os.Stat(filepath.Join(f.WS, "asked.txt")); !os.IsNotExist(err) {
		t.Fatalf("the denied command ran: %v", err)
	}
	f.prompt(t, x, f.Sess.ID, promptAsk+", again")
	if b, err := os.ReadFile(filepath.Join(f.WS, "asked.txt")); err != nil || string(b) != "asked\n" {
		t.Fatalf("asked.txt after the allow: %q %v", b, err)
	}
	evs := f.events(t, f.Sess.ID)
	ar := exectest.Payloads[harness.ApprovalResolved](t, evs, harness.TypeApprovalResolved)
	tc := exectest.Payloads[harness.ToolCompleted](t, evs, harness.TypeToolCompleted)
	if len(ar) != 2 || ar[0].Decision != executor.DecisionDeny || ar[1].Decision != executor.DecisionOnce ||
		len(tc) != 2 || !tc[0].IsError || tc[1].IsError {
		t.Fatalf("approvals %+v, results %+v\n%s", ar, tc, exectest.Types(evs))
	}
	if st, _ := f.H.State(f.Sess.ID); len(st.Approvals) != 0 {
		t.Fatalf("approvals pending after the turns: %v", st.Approvals)
	}
}

// UsageAndCost: every model call's usage and cost is recorded (model.completed), summed in the
// turn's result and the session's state.
func UsageAndCost(t *testing.T, s *Suite) {
	f := s.Fixture(t, "", harness.Options{})
	x := f.Open(t, Options{})
	res := f.prompt(t, x, f.Sess.ID, promptFile+" (usage)")
	if res.Usage.Input == 0 || res.Usage.Output == 0 || res.Cost <= 0 {
		t.Fatalf("result's usage %+v, cost %v", res.Usage, res.Cost)
	}
	comp := exectest.Payloads[harness.ModelCompleted](t, f.events(t, f.Sess.ID), harness.TypeModelCompleted)
	var cost float64
	for i, c := range comp {
		if c.Usage.Input == 0 || c.Cost <= 0 {
			t.Fatalf("model.completed %d: usage %+v, cost %v", i, c.Usage, c.Cost)
		}
		cost += c.Cost
	}
	st, _ := f.H.State(f.Sess.ID)
	// An agent's side requests (a title) add to the session's cost besides the turn's calls.
	if len(comp) < 2 || st.ModelCalls != len(comp) || st.Cost < cost-1e-9 {
		t.Fatalf("%d model calls recorded; state: %d calls, cost %v (sum %v)", len(comp), st.ModelCalls, st.Cost, cost)
	}
}

// Cancel: cancelling a turn while the model answers ends it cancelled (turn.cancelled, nothing
// left open) and the next prompt is answered.
func Cancel(t *testing.T, s *Suite) {
	f := s.Fixture(t, "", harness.Options{})
	x := f.Open(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.srv.Hanging():
			cancel()
		case <-ctx.Done():
		}
	}()
	res, err := x.Prompt(ctx, f.Sess.ID, promptSlow+" please")
	evs := f.events(t, f.Sess.ID)
	if err != nil || !res.Cancelled {
		t.Fatalf("cancelled turn: %v %+v (events %s)", err, res, exectest.Types(evs))
	}
	// An agent may report the cancelled turn's usage after exo recorded its end (claude-agent-acp
	// does, under load), or make a model call beside the conversation then (claude-agent-acp's
	// title or summary, a model.side): each is recorded then, and the turn still ends with its
	// cancel.
	order := exectest.Types(evs)
	for trimmed := true; trimmed; {
		trimmed = false
		for _, after := range []string{harness.TypeAgentUsage, harness.TypeModelSide} {
			if strings.HasSuffix(order, " "+after) {
				order, trimmed = strings.TrimSuffix(order, " "+after), true
			}
		}
	}
	if !strings.HasSuffix(order, harness.TypeTurnCancelled) {
		t.Fatalf("events %s", exectest.Types(evs))
	}
	st, _ := f.H.State(f.Sess.ID)
	if len(st.OpenCalls) > 0 || st.ModelInFlight != 0 || len(st.Approvals) > 0 {
		t.Fatalf("after the cancel: open calls %v, model %d, approvals %v", st.OpenCalls, st.ModelInFlight, st.Approvals)
	}
	if res := f.prompt(t, x, f.Sess.ID, promptHello+" after the cancel"); !strings.Contains(res.Response, answerHello) {
		t.Fatalf("after the cancel: %+v", res)
	}
}
