package acp

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

// answerApprovals answers the session's approval requests with decisions, in order.
func answerApprovals(t *testing.T, f *fixture, decisions ...string) {
	t.Helper()
	ch, stop := f.h.Subscribe(256)
	t.Cleanup(stop)
	go func() {
		for n := range ch {
			for _, e := range n.Events {
				if e.Type != harness.TypeApprovalRequested || len(decisions) == 0 {
					continue
				}
				p, _ := harness.Decode(e)
				d := decisions[0]
				decisions = decisions[1:]
				f.h.Append(f.s.ID, harness.MustRecord(harness.TypeApprovalResolved, harness.ActorUser,
					harness.ApprovalResolved{CallID: p.(*harness.ApprovalRequested).CallID, Decision: d}))
			}
		}
	}()
}

// noKey fails when the sealed key's bytes are in b.
func noKey(t *testing.T, what string, b []byte) {
	t.Helper()
	if bytes.Contains(b, []byte(sealedKey)) {
		t.Errorf("%s holds the sealed key", what)
	}
}

func TestClaudeAdapterPermissionStreamAndKeys(t *testing.T) {
	f := newFixture(t)
	var mu sync.Mutex
	var streamed strings.Builder
	x := f.executor(t, Options{Command: []string{claudeACP(t)}, Exec: executor.Options{
		Approvals: map[string]string{"bash": "ask"}, ApprovalTimeout: time.Minute,
		OnDelta: func(_, d string) { mu.Lock(); streamed.WriteString(d); mu.Unlock() }}})
	answerApprovals(t, f, executor.DecisionDeny, executor.DecisionOnce)
	// Denied: the adapter reports the refusal to the model, which (scripted) goes on.
	res, err := x.Prompt(context.Background(), f.s.ID, "acp bash please", "test")
	okResult(t, res, err)
	if _, err := os.Stat(filepath.Join(f.ws, "acp-bash.txt")); !os.IsNotExist(err) {
		t.Fatalf("the denied command ran: %v", err)
	}
	// Allowed on the next try.
	res, err = x.Prompt(context.Background(), f.s.ID, "acp bash again", "test")
	okResult(t, res, err)
	if b, err := os.ReadFile(filepath.Join(f.ws, "acp-bash.txt")); err != nil || string(b) != "acp\n" {
		t.Fatalf("acp-bash.txt: %q %v", b, err)
	}
	mu.Lock()
	got := streamed.String()
	mu.Unlock()
	if !strings.Contains(got, "Running it.") || !strings.Contains(got, "Done through ACP.") || res.Response != "Done through ACP." {
		t.Fatalf("streamed %q, response %q", got, res.Response)
	}
	evs := f.events(t, f.s.ID)
	ar := exectest.Payloads[harness.ApprovalResolved](t, evs, harness.TypeApprovalResolved)
	tc := exectest.Payloads[harness.ToolCompleted](t, evs, harness.TypeToolCompleted)
	if len(ar) != 2 || ar[0].Decision != "deny" || ar[1].Decision != "once" || len(tc) != 2 || !tc[0].IsError || tc[1].IsError || tc[1].Tool != "Bash" {
		t.Fatalf("approvals %+v, results %+v\n%s", ar, tc, exectest.Types(evs))
	}
	found := false
	for _, s := range exectest.Payloads[harness.WorkspaceSnapshot](t, evs, harness.TypeWorkspaceSnapshot) {
		for _, c := range s.Changed {
			found = found || c.Path == "acp-bash.txt"
		}
	}
	if !found || !strings.Contains(exectest.Types(evs), "model.requested model.completed") {
		t.Fatalf("no snapshot of acp-bash.txt or model calls: %s", exectest.Types(evs))
	}
	sel := exectest.Payloads[harness.ExecutorSelected](t, evs, harness.TypeExecutorSelected)
	if len(sel) != 1 || !strings.Contains(sel[0].Version, "claude-agent-acp") {
		t.Fatalf("executor.selected %+v", sel)
	}
	// The adapter's own account of usage (one a turn) and its commands (it lists them twice, 44
	// then 40 of them: each list is recorded; a list sent again unchanged is not, see tinyagent).
	us := exectest.Payloads[harness.AgentUsage](t, evs, harness.TypeAgentUsage)
	if len(us) != 2 || us[1].Window != 200000 || us[1].Context == 0 || us[1].Cost <= 0 || us[1].Currency != "USD" {
		t.Fatalf("agent.usage %+v", us)
	}
	if cmds := exectest.Payloads[harness.AgentCommands](t, evs, harness.TypeAgentCommands); len(cmds) == 0 || len(cmds) > 2 || len(cmds[0].Commands) < 10 {
		t.Fatalf("agent.commands %d", len(cmds))
	}
	// The adapter starts in auto (a model decides); exo put it in default, where it asks.
	ms := exectest.Payloads[harness.ExecutorMode](t, evs, harness.TypeExecutorMode)
	if len(ms) != 1 || ms[0].Mode != "default" || ms[0].By != harness.ModeByExo || !ms[0].Asks || !strings.Contains(strings.Join(ms[0].Available, " "), "auto") {
		t.Fatalf("executor.mode %+v", ms)
	}
	// The sealed key reaches the model server only in the auth header.
	for i, r := range f.srv.Requests() {
		noKey(t, fmt.Sprintf("request %d body", i), r.Body)
	}
	ss := x.Session(f.s.ID)
	environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", ss.Proc.(*proc).Pid()))
	if err != nil {
		t.Fatal(err)
	}
	noKey(t, "the adapter's environment", environ)
	if bytes.Contains(environ, []byte("IS_SANDBOX")) {
		t.Errorf("IS_SANDBOX reached the adapter")
	}
	filepath.WalkDir(ss.Dirs.Root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			noKey(t, p, b)
		}
		return nil
	})
}

func TestClaudeAdapterUsesExosToolsAndCancels(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{Command: []string{claudeACP(t)}})
	res, err := x.Prompt(context.Background(), f.s.ID, "acp exo tool please", "test")
	okResult(t, res, err)
	if b, err := os.ReadFile(filepath.Join(f.ws, "exo.txt")); err != nil || string(b) != "via-exo\n" {
		t.Fatalf("exo.txt: %q %v (events %s)", b, err, exectest.Types(f.events(t, f.s.ID)))
	}
	tc := exectest.Payloads[harness.ToolCompleted](t, f.events(t, f.s.ID), harness.TypeToolCompleted)
	if len(tc) != 1 || tc[0].Tool != "bash" || strings.HasPrefix(tc[0].CallID, "exo_") {
		t.Fatalf("exo's bash: %+v", tc)
	}
	// Ctrl-C: session/cancel ends the turn; the next prompt works.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-f.srv.Hanging(); cancel() }()
	res, err = x.Prompt(ctx, f.s.ID, "slow answer please", "test")
	if err != nil || !res.Cancelled {
		t.Fatalf("cancelled turn: %v %+v", err, res)
	}
	// The agent's usage_update for the cancelled turn may be handled after the turn's end is
	// recorded (notifications and the prompt's answer arrive on their own paths), and a call the
	// agent makes on its own once the turn is over is recorded beside the conversation: only
	// those may follow turn.cancelled.
	ts := exectest.Types(f.events(t, f.s.ID))
	for strings.HasSuffix(ts, " agent.usage") || strings.HasSuffix(ts, " model.side") {
		ts = strings.TrimSuffix(strings.TrimSuffix(ts, " agent.usage"), " model.side")
	}
	if !strings.HasSuffix(ts, "turn.cancelled") {
		t.Fatalf("events %s", ts)
	}
	if !x.Session(f.s.ID).Proc.Alive() {
		t.Fatal("the adapter died on cancel")
	}
	res, err = x.Prompt(context.Background(), f.s.ID, "say hello", "test")
	okResult(t, res, err)
	if res.Response != "Hello from the script." {
		t.Fatalf("after cancel: %+v", res)
	}
}

func TestClaudeAdapterSessionLoadedByTheNextProcess(t *testing.T) {
	f := newFixture(t)
	bin := claudeACP(t)
	x := f.executor(t, Options{Command: []string{bin}})
	res, err := x.Prompt(context.Background(), f.s.ID, "remember the word PAPAYA", "test")
	okResult(t, res, err)
	x.Close() // the daemon stops; the adapter's session is saved
	x2 := f.executor(t, Options{Command: []string{bin}})
	res, err = x2.Prompt(context.Background(), f.s.ID, "what word did I say?", "test")
	okResult(t, res, err)
	if !x2.Session(f.s.ID).Proc.(*proc).loaded {
		t.Fatal("the second process did not load the session")
	}
	ms := f.srv.Messages()
	last := ms[len(ms)-1].Body
	for i := len(ms) - 1; i >= 0; i-- { // the title request may come last
		if bytes.Contains(ms[i].Body, []byte("what word did I say")) && !bytes.Contains(ms[i].Body, []byte("Write the title")) {
			last = ms[i].Body
			break
		}
	}
	if !bytes.Contains(last, []byte("PAPAYA")) || !bytes.Contains(last, []byte("I will remember it.")) || bytes.Contains(last, []byte("[The conversation so far")) {
		t.Fatalf("the loaded session's request:\n%s", last)
	}
	// A rewind makes the saved session stale: the next process starts a new one from the log.
	x2.Close()
	var at uint64
	for _, e := range f.events(t, f.s.ID) {
		if e.Type == harness.TypeExecutorResult && at == 0 {
			at = e.Seq
		}
	}
	if _, err := f.h.Rewind(f.s.ID, at); err != nil {
		t.Fatal(err)
	}
	x3 := f.executor(t, Options{Command: []string{bin}})
	res, err = x3.Prompt(context.Background(), f.s.ID, "what word did I say? (after rewind)", "test")
	okResult(t, res, err)
	if x3.Session(f.s.ID).Proc.(*proc).loaded {
		t.Fatal("a stale session was loaded after a rewind")
	}
}
