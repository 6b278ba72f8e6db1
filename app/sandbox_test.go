package app

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/service"
	"exo/views"
)

// sandboxHeader returns the sandbox pane's header line ("$ command … state") on screen.
func sandboxHeader(m *Model) string {
	for _, l := range strings.Split(ansi.Strip(m.render()), "\n") {
		if i := strings.Index(l, "$ "); i >= 0 {
			return strings.TrimRight(l[i:], "│ ")
		}
	}
	return ""
}

// TestSandboxHeaderCountsWhileRunning: a `!` command's header counts up while it runs (it said
// "running 0ms" until the end), and keeps the time it took when the command's end arrives before
// the harness's tool.completed.
func TestSandboxHeaderCountsWhileRunning(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	m.execCmd("sleep 30") // the command itself is not run: only what the app shows
	if h := sandboxHeader(m); !strings.Contains(h, "sleep 30") || !strings.Contains(h, "running") {
		t.Fatalf("header while running: %q", h)
	}
	deadline := time.Now().Add(10 * time.Second)
	for strings.Contains(sandboxHeader(m), "running 0ms") {
		if time.Now().After(deadline) {
			t.Fatalf("the header still says %q after 10 s of ticks", sandboxHeader(m))
		}
		time.Sleep(5 * time.Millisecond)
		m.Update(views.SpinnerTickMsg{})
	}
	m.Update(execDoneMsg{session: m.current(), command: "sleep 30", exit: 0})
	h := sandboxHeader(m)
	if !strings.Contains(h, "exit 0") || strings.HasSuffix(h, "· 0ms") {
		t.Fatalf("header after the end: %q", h)
	}
}

// TestToolWithoutExitCodeSaysFailed: a call refused before it ran (no approver) or a file tool's
// error has no exit status; its block said "✗ 0", which reads as a success code.
func TestToolWithoutExitCodeSaysFailed(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	id := m.current()
	h := m.c.(*service.Service).Harness()
	if _, err := h.Append(id,
		harness.MustRecord(harness.TypeToolStarted, "tool:bash", harness.ToolStarted{CallID: "r1", Tool: "bash", Summary: "rm -rf build"}),
		harness.MustRecord(harness.TypeToolCompleted, "tool:bash", harness.ToolCompleted{CallID: "r1", Tool: "bash", Output: "approval needed for bash but nobody can answer", IsError: true}),
	); err != nil {
		t.Fatal(err)
	}
	m.Update(m.loadCmd(id)())
	var header string
	for _, l := range strings.Split(ansi.Strip(m.render()), "\n") {
		if strings.Contains(l, "rm -rf build") {
			header = l
		}
	}
	if !strings.Contains(header, "✗ failed") || strings.Contains(header, "✗ 0") {
		t.Fatalf("the refused call's header: %q", header)
	}
	if !strings.Contains(ansi.Strip(m.render()), "✓ 0") {
		t.Fatal("a command's exit code 0 is no longer shown")
	}
}

// TestSandboxEndsWhenACallIsRefused: a bash call refused before it ran (its tool.completed has no
// exit code) ends the sandbox's "running" header; it stayed running for good. A command started
// from another terminal keeps the clock going, so its header counts too.
func TestSandboxEndsWhenACallIsRefused(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	id := m.current()
	h := m.c.(*service.Service).Harness()
	evs, err := h.Append(id, harness.MustRecord(harness.TypeToolStarted, "tool:bash", harness.ToolStarted{CallID: "r2", Tool: "bash", Summary: "sleep 100"}))
	if err != nil {
		t.Fatal(err)
	}
	m.onEvent(evs[0])
	if !strings.Contains(sandboxHeader(m), "running") {
		t.Fatalf("header after tool.started: %q", sandboxHeader(m))
	}
	if !m.animating() {
		t.Fatal("a command running in the sandbox does not keep the clock going")
	}
	evs, err = h.Append(id, harness.MustRecord(harness.TypeToolCompleted, "tool:bash", harness.ToolCompleted{CallID: "r2", Tool: "bash", Output: "approval needed for bash but nobody can answer", IsError: true}))
	if err != nil {
		t.Fatal(err)
	}
	m.onEvent(evs[0])
	if hd := sandboxHeader(m); strings.Contains(hd, "running") || !strings.Contains(hd, "✗ failed") {
		t.Fatalf("header after the refusal: %q", hd)
	}
	if m.animating() {
		t.Fatal("the clock keeps running after the refusal")
	}
}

// TestSandboxTimerLeavesOutTheApprovalWait: a bash call that waits for approval shows
// "awaiting approval", not a running clock, and once approved its timer counts from then: the
// wait is not in the time the pane shows.
func TestSandboxTimerLeavesOutTheApprovalWait(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	id := m.current()
	h := m.c.(*service.Service).Harness()
	appendOne := func(typ string, p any) {
		t.Helper()
		evs, err := h.Append(id, harness.MustRecord(typ, "tool:bash", p))
		if err != nil {
			t.Fatal(err)
		}
		m.onEvent(evs[0])
	}
	appendOne(harness.TypeToolStarted, harness.ToolStarted{CallID: "r3", Tool: "bash", Summary: "make release"})
	appendOne(harness.TypeApprovalRequested, harness.ApprovalRequested{CallID: "r3", Tool: "bash", Summary: "make release"})
	const wait = 300 * time.Millisecond
	time.Sleep(wait)
	m.Update(views.SpinnerTickMsg{})
	if hd := sandboxHeader(m); !strings.Contains(hd, "awaiting approval") || strings.Contains(hd, "running") {
		t.Fatalf("header while the call waits for approval: %q", hd)
	}
	approved := time.Now()
	appendOne(harness.TypeApprovalResolved, harness.ApprovalResolved{CallID: "r3", Decision: "allow"})
	m.Update(views.SpinnerTickMsg{})
	st := m.sandbox.Status()
	if hd := sandboxHeader(m); !strings.Contains(hd, "running") || st.Waiting {
		t.Fatalf("header once approved: %q", hd)
	}
	if st.Started.Before(approved) || st.Duration >= wait {
		t.Fatalf("the timer counts the approval wait: started %v before the approval at %v, shows %v", approved.Sub(st.Started), approved, st.Duration)
	}
}

// TestSandboxFollowsTheLogAfterReconnecting: a bash call runs, the daemon is killed and the
// next one closes the call as interrupted while no app watches; when the app reconnects it reads
// the session again, and the sandbox pane says interrupted instead of spinning for good.
func TestSandboxFollowsTheLogAfterReconnecting(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	id := m.current()
	h := m.c.(*service.Service).Harness()
	evs, err := h.Append(id, harness.MustRecord(harness.TypeToolStarted, "tool:bash", harness.ToolStarted{CallID: "k1", Tool: "bash", Summary: "sleep 300"}))
	if err != nil {
		t.Fatal(err)
	}
	m.onEvent(evs[0])
	m.foldShown(evs)
	if !strings.Contains(sandboxHeader(m), "running") {
		t.Fatalf("header while it runs: %q", sandboxHeader(m))
	}
	// What the next daemon records at its start, unseen by the app (no watch then).
	if _, err := h.Append(id,
		harness.MustRecord(harness.TypeToolCompleted, harness.ActorHarness, harness.ToolCompleted{CallID: "k1", Tool: "bash", Interrupted: true, IsError: true,
			Output: "exo stopped before this call finished; it may or may not have taken effect"}),
	); err != nil {
		t.Fatal(err)
	}
	m.Update(m.refreshCmd()()) // what onWatchOpened asks for after a reconnection
	hd := sandboxHeader(m)
	if strings.Contains(hd, "running") || !strings.Contains(hd, "✗ interrupted") || !strings.Contains(hd, "sleep 300") {
		t.Fatalf("header after the reconnection: %q", hd)
	}
	if m.animating() {
		t.Fatal("the spinner keeps going for a command the log ended")
	}
}

// TestSandboxStatusOfAProjection: the newest bash call of a projection decides a running pane's
// status: still running keeps it, ended gives its exit code, interrupted says so.
func TestSandboxStatusOfAProjection(t *testing.T) {
	running := views.SandboxStatus{Command: "make", Running: true, Started: time.Now()}
	two := 2
	for _, c := range []struct {
		items  []api.Item
		open   bool
		want   views.SandboxStatus
		change bool
	}{
		{items: []api.Item{{Kind: api.ItemTool, Tool: "bash", Status: "running"}}, open: true, want: running},
		{items: []api.Item{{Kind: api.ItemTool, Tool: "bash", Status: "error", ExitCode: &two, DurationMs: 1500}, {Kind: api.ItemTool, Tool: "read_file", Status: "running"}},
			want: views.SandboxStatus{Command: "make", ExitCode: 2, Duration: 1500 * time.Millisecond}, change: true},
		{items: []api.Item{{Kind: api.ItemTool, Tool: "bash", Status: "interrupted"}},
			want: views.SandboxStatus{Command: "make", NoExitCode: true, Interrupted: true}, change: true},
		{want: views.SandboxStatus{Command: "make", NoExitCode: true}, change: true},
	} {
		st := &api.SessionState{Items: c.items}
		if c.open {
			st.OpenCalls = map[string]uint64{"x": 1}
		}
		got, changed := sandboxStatusOf(st, running)
		if changed != c.change || got != c.want {
			t.Errorf("items %+v: %+v %v, want %+v %v", c.items, got, changed, c.want, c.change)
		}
	}
}
