package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/harness"
	"exo/harness/service"
	"exo/sandbox"
)

// tenStepScript is a turn of ten tool-calling steps (nine that read, one that writes and so
// asks for an approval under the ask mode), then an answer.
func tenStepScript() string {
	var b strings.Builder
	b.WriteString("name: tensteps\nchunk: 2\ndelay: 10ms\nturns:\n") // streamed, as a model answers
	for i := 1; i <= 9; i++ {
		tool := [...]string{"read_file", "list_dir", "glob", "grep"}[i%4]
		args := map[string]string{"read_file": "{path: notes.txt}", "list_dir": "{path: .}", "glob": "{pattern: \"*.txt\"}",
			"grep": "{pattern: hello}"}[tool]
		fmt.Fprintf(&b, "  - text: step %d\n    tool_calls:\n      - name: %s\n        args: %s\n", i, tool, args)
	}
	b.WriteString("  - text: step 10\n    tool_calls:\n      - name: write_file\n        args: {path: out.txt, content: done}\n")
	b.WriteString("  - text: all ten steps done\n")
	return b.String()
}

// quietFor waits until no request was counted for d and none is on its way (at most limit), and
// reports whether it got there. (A slow request, such as an MCP check on a loaded machine, once
// made a load in progress look settled.)
func quietFor(c *countingClient, d, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	_, last := c.snapshot()
	since := time.Now()
	for time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		if _, n := c.snapshot(); n != last || c.busy() {
			last, since = n, time.Now()
		} else if time.Since(since) >= d {
			return true
		}
	}
	return false
}

// TestATurnCostsTheAppOnlyItsOwnRequests runs the app (a real Bubble Tea program, rendering)
// through a ten-step turn with tools and an approval, counting its requests to the harness:
// after the attach, the app only sends the prompt and the approval's answer. Everything else
// it shows (the conversation, the status bar, the timeline, the siblings) it folds from the
// watch stream's events and notices.
func TestATurnCostsTheAppOnlyItsOwnRequests(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no user MCP servers or settings
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	script := filepath.Join(t.TempDir(), "tensteps.yaml")
	if err := os.WriteFile(script, []byte(tenStepScript()), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "ten", Provider: "scripted", BaseURL: script}); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := h.NewSession(harness.NewSessionOptions{Name: "ten", Workspace: ws, Model: "ten"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.NewSession(harness.NewSessionOptions{Name: "sibling"}); err != nil {
		t.Fatal(err)
	}
	svc := service.New(h, service.Options{})
	t.Cleanup(func() { svc.Close() })
	c := newCountingClient(svc)

	m := New(c, Options{Session: s.ID, Theme: "dark", Approval: "ask"})
	p := tea.NewProgram(m, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithWindowSize(160, 48),
		tea.WithoutSignals(), tea.WithFPS(frameRate))
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			p.Kill()
			<-done
		})
	}
	t.Cleanup(func() {
		stop()
		m.closeWatch()
	})
	p.Send(tea.WindowSizeMsg{Width: 160, Height: 48})
	// The app's first requests may come late on a loaded machine: quiet before them is not
	// settled. Wait for the watch's attach, then for the rest of the load to end.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if calls, _ := c.snapshot(); calls["Attach"] > 0 && calls["Watch"] > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the app did not attach its watch: %s", c)
		}
	}
	if !quietFor(c, 500*time.Millisecond, 10*time.Second) {
		t.Fatalf("the app did not settle after attaching: %s", c)
	}
	attach, _ := c.snapshot()
	if attach["Attach"] != 1 || attach["Watch"] != 1 {
		t.Fatalf("the app did not attach its watch: %s", c)
	}
	t.Logf("attach: %s", c)
	c.reset()

	p.Send(tea.PasteMsg{Content: "take ten steps"})
	p.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// Answer the approval as a user does, once its modal is armed (it ignores keys while it
	// opens); a slow machine may show it late, so y is pressed again while it still waits.
	var seen time.Time
	for asked := false; ; {
		if ctx.Err() != nil {
			t.Fatalf("the approval was not answered: %s", c)
		}
		st, err := svc.State(ctx, s.Branch)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Approvals) == 0 {
			if asked {
				break
			}
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if !asked {
			asked, seen = true, time.Now()
		}
		if time.Since(seen) > approvalGrace+200*time.Millisecond {
			p.Send(tea.KeyPressMsg{Code: 'y', Text: "y"})
			seen = time.Now()
		}
		time.Sleep(20 * time.Millisecond)
	}
	res, err := svc.WaitTurn(ctx, s.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != "" || res.Cancelled {
		t.Fatalf("the turn did not run through: %+v", res)
	}
	if !quietFor(c, 700*time.Millisecond, 10*time.Second) {
		t.Fatalf("the app did not settle after the turn: %s", c)
	}
	st, _ := svc.State(ctx, s.Branch)
	if st.Steps < 10 || st.ToolCalls < 10 {
		t.Fatalf("the turn took %d steps and %d tool calls, want ten of each", st.Steps, st.ToolCalls)
	}
	// Another client changes a setting (not an event): the app shows it from the stream too.
	if _, err := svc.SetSetting(ctx, s.ID, "budget_cost", "7.5"); err != nil {
		t.Fatal(err)
	}
	if !quietFor(c, 500*time.Millisecond, 10*time.Second) {
		t.Fatalf("the app did not settle after another client's setting: %s", c)
	}
	calls, total := c.snapshot()
	t.Logf("app's requests through a %d-step turn (%d events): %d: %s", st.Steps, st.Head, total, c)
	if calls["StartTurn"] != 1 || calls["Approve"] != 1 || total != 2 {
		t.Errorf("after the attach the app made %d requests (%s), want the prompt and the approval's answer only", total, c)
	}
	stop()
	// What the app folded is what the harness holds: the session's projection, and every
	// sibling as the harness lists it now.
	if st, _ = svc.State(ctx, s.Branch); !reflect.DeepEqual(m.state, st) {
		t.Fatalf("the app's projection is not the harness's:\n%+v\nwant\n%+v", m.state, st)
	}
	all, err := svc.ListSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.sibs.rows(), siblingRows(all); !reflect.DeepEqual(got, want) {
		t.Fatalf("the siblings pane's rows are not the harness's:\n%+v\nwant\n%+v", got, want)
	}
	if m.session.Settings["budget_cost"] != "7.5" || m.info.Budget != 7.5 {
		t.Fatalf("another client's setting is not shown: %v, budget %v", m.session.Settings, m.info.Budget)
	}
	screen := ansi.Strip(m.render())
	if !strings.Contains(screen, "all ten steps done") {
		t.Fatalf("the answer is not on screen:\n%s", screen)
	}
}
