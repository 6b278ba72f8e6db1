package views

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// terminals are the terminal sizes goldens are taken at.
var terminals = [][2]int{{60, 20}, {80, 24}, {120, 40}, {200, 60}}

// layout gives each pane the size it gets in a W×H terminal: a status line
// and a 5-line input at the bottom, the conversation on the left (62%), and
// timeline, siblings and sandbox stacked on the right.
func layout(pane string, W, H int) (int, int) {
	mh := H - 6
	cw := W * 62 / 100
	rw := W - cw
	switch pane {
	case "conversation":
		return cw, mh
	case "input", "input-notice":
		return W, 5
	case "queue":
		return W, 7 // the input with two queued prompts
	case "timeline":
		return rw, mh / 2
	case "siblings":
		return rw, mh / 4
	case "sandbox":
		return rw, mh - mh/2 - mh/4
	case "status":
		return W, 1
	case "plan":
		return cw, 7
	case "split", "picker":
		return W, mh
	}
	return W - 4, H - 4 // overlays
}

// goldenPanes builds each pane with sample data for a theme.
var goldenPanes = map[string]func(c *Common, W int) interface{ View() string }{
	"conversation": func(c *Common, _ int) interface{ View() string } {
		p := NewConversation(c)
		p.SetItems(sampleConversation())
		p.Focus()
		return sizer{p}
	},
	"conversation-preview": func(c *Common, _ int) interface{ View() string } {
		p := NewConversation(c)
		p.SetItems(sampleConversation()[:3])
		p.SetPreview(12)
		return sizer{p}
	},
	"input": func(c *Common, _ int) interface{ View() string } {
		p := NewInput(c)
		p.Focus()
		p.SetValue("/re")
		return sizer{p}
	},
	"input-multiline": func(c *Common, _ int) interface{ View() string } {
		p := NewInput(c)
		p.Focus()
		p.SetValue("Refactor the store so that fork is O(1):\n")
		p.Update(tea.PasteMsg{Content: strings.Repeat("pasted line\n", 1233) + "end"})
		return sizer{p}
	},
	"queue": func(c *Common, _ int) interface{ View() string } {
		p := NewInput(c)
		p.Focus()
		p.SetBusy(true)
		p.SetQueued([]QueuedLine{{Text: "then run the tests\nand fix what fails"}, {Text: "use tabs, not spaces", Steer: true}})
		p.SetValue("also update the README")
		return sizer{p}
	},
	"input-notice": func(c *Common, _ int) interface{ View() string } {
		p := NewInput(c)
		p.Focus()
		p.SetNotice("this session was deleted elsewhere: /new starts one, /resume opens another")
		return sizer{p}
	},
	"popup-input": func(c *Common, W int) interface{ View() string } {
		p := NewInput(c)
		p.Focus()
		p.SetValue("/")
		p.Update(press("down"))
		return popupView{p, min(W, 48)}
	},
	"popup-mention": func(c *Common, W int) interface{ View() string } {
		p := NewInput(c)
		p.Focus()
		p.SetFiles(sampleFiles())
		p.SetValue("explain @stor")
		p.Update(press("down"))
		return popupView{p, min(W, 60)}
	},
	"popup-mentionfolder": func(c *Common, W int) interface{ View() string } {
		p := NewInput(c)
		p.Focus()
		p.SetFiles(sampleFiles())
		p.SetValue("@harness/")
		return popupView{p, min(W, 60)}
	},
	"input-mention": func(c *Common, _ int) interface{ View() string } {
		p := NewInput(c)
		p.Focus()
		p.SetValue("explain @store/event.go and @\"docs/a b.md\" please")
		return sizer{p}
	},
	"ask-delete": func(c *Common, _ int) interface{ View() string } {
		return sizer{NewAsk(c, "Delete try-middleware?", []string{
			"Its fork's working copy, snapshots and sandbox state are removed; your own workspace is not touched.",
			"Its events stay in the log (exo verify still checks them), but no command finds the session again.",
		}, "delete", true, CloseOverlay{})}
	},
	"picker": func(c *Common, _ int) interface{ View() string } {
		p := NewPicker(c)
		p.SetRows(samplePickerRows())
		p.Update(press("down"))
		return sizer{p}
	},
	"picker-filter": func(c *Common, _ int) interface{ View() string } {
		p := NewPicker(c)
		p.SetRows(samplePickerRows())
		for _, k := range "bench" {
			p.Update(press(string(k)))
		}
		return sizer{p}
	},
	"timeline-filter": func(c *Common, _ int) interface{ View() string } {
		p := NewTimeline(c)
		p.SetSource(sampleRows(200))
		p.Focus()
		p.SetFilter("tool")
		p.move(-2)
		return sizer{p}
	},
	"timeline": func(c *Common, _ int) interface{ View() string } {
		p := NewTimeline(c)
		rows := sampleRows(40)
		rows[9].IsBranchPoint = true
		for i := 10; i < 14; i++ {
			rows[i].Abandoned, rows[i].Branch = true, "old"
		}
		p.SetSource(rows)
		p.Focus()
		p.move(-3)
		return sizer{p}
	},
	"siblings": func(c *Common, _ int) interface{ View() string } {
		p := NewSiblings(c)
		p.SetRows(sampleSiblings())
		p.Focus()
		return sizer{p}
	},
	"siblings-remote": func(c *Common, _ int) interface{ View() string } {
		p := NewSiblings(c)
		p.SetRows(remoteSiblings())
		p.SetCurrent("r1")
		p.Focus()
		p.move(2)
		return sizer{p}
	},
	"sandbox-awaiting": func(c *Common, _ int) interface{ View() string } {
		p := NewSandbox(c, 100)
		p.SetStatus(SandboxStatus{Command: "rm -rf ./build && make release", Running: true, Waiting: true})
		return sizer{p}
	},
	"sandbox": func(c *Common, _ int) interface{ View() string } {
		p := NewSandbox(c, 100)
		p.SetStatus(SandboxStatus{Command: "go test ./...", Running: true, Duration: 3200 * time.Millisecond})
		for i := 1; i <= 30; i++ {
			p.Write(fmt.Sprintf("\x1b[32mok\x1b[0m  \texo/pkg%d\t0.%03ds\n", i, i*7))
		}
		p.Write("\x1b]0;pwned\x07\x1b[2Jstill here 日本語 🚀\n")
		return sizer{p}
	},
	"status": func(c *Common, W int) interface{ View() string } {
		s := NewStatusBar(c)
		s.SetWidth(W)
		s.SetInfo(sampleStatus())
		s.SetHints(NewTimeline(c).ShortHelp())
		return s
	},
	"conversation-mcp": func(c *Common, _ int) interface{ View() string } {
		p := NewConversation(c)
		p.SetItems(mcpConversation())
		p.Focus()
		return sizer{p}
	},
	"approval-mcp": func(c *Common, _ int) interface{ View() string } {
		return sizer{NewApproval(c, ApprovalRequest{ID: "a2", Tool: "mcp__fs__write_file", Args: `{"path":"notes/plan.md","content":"# Plan\n"}`, Reason: "this tool's policy is ask"})}
	},
	"status-mcp": func(c *Common, W int) interface{ View() string } {
		s := NewStatusBar(c)
		s.SetWidth(W)
		info := sampleStatus()
		info.MCP, info.MCPErr = "mcp 1/2 (web untrusted: exo trust)", true
		s.SetInfo(info)
		s.SetHints(NewTimeline(c).ShortHelp())
		return s
	},
	"approval": func(c *Common, _ int) interface{ View() string } {
		return sizer{NewApproval(c, ApprovalRequest{ID: "a1", Tool: "bash", Args: "rm -rf ./build && make release VERSION=1.2.3", Reason: "bash is not in the always-allowed list"})}
	},
	"confirm": func(c *Common, _ int) interface{ View() string } {
		return sizer{NewConfirm(c, RewindPlan{Seq: 42, Events: 17, Files: []string{"cmd/server/main.go", "cmd/server/health_test.go", "go.mod"}})}
	},
	"detail": func(c *Common, _ int) interface{ View() string } {
		return sizer{NewDetail(c, "#42 tool.completed", []byte(`{"session":"s1","seq":42,"type":"tool.completed","actor":"tool:bash","data":{"exit_code":0,"duration_ms":340,"output_head":"ok  exo/store 0.2s"}}`))}
	},
	"detail-escapes": func(c *Common, _ int) interface{ View() string } {
		// An event as the log stores it: its payload's & < > were escaped when it was encoded.
		return sizer{NewDetail(c, "#43 tool.started", []byte(`{"seq":43,"type":"tool.started","data":{"tool":"bash","args":{"command":"go test ./... \u0026\u0026 echo ok \u003e out.txt 2\u003e\u00261 \u003c in"}}}`))}
	},
	"help": func(c *Common, _ int) interface{ View() string } {
		h := NewHelp(c)
		h.SetSections(HelpSection{Title: "timeline (focused)", Keys: NewTimeline(c)}, HelpSection{Title: "sessions", Keys: NewSiblings(c)},
			HelpSection{Title: "conversation", Keys: NewConversation(c)})
		return sizer{h}
	},
	"split": func(c *Common, W int) interface{ View() string } {
		s := NewSplit(c)
		n := min(max(W/50, 2), MaxSplit)
		panes := make([]*Conversation, n)
		for i := range panes {
			panes[i] = NewConversation(c)
			panes[i].SetTitle(fmt.Sprintf("session %d", i+1))
			panes[i].SetItems(sampleConversation()[:3+i])
		}
		s.SetPanes(panes...)
		s.Focus()
		return sizer{s}
	},
	// A set of five and of eight attempts streaming: a grid of two rows.
	"split-grid5": func(c *Common, _ int) interface{ View() string } { return sizer{gridSplit(c, 5)} },
	"split-grid8": func(c *Common, _ int) interface{ View() string } { return sizer{gridSplit(c, 8)} },
}

// gridSplit is a split view of n attempts' conversations, the third focused.
func gridSplit(c *Common, n int) *Split {
	s := NewSplit(c)
	panes := make([]*Conversation, n)
	for i := range panes {
		panes[i] = NewConversation(c)
		panes[i].SetTitle(fmt.Sprintf("quest.a1b2c3.%d", i+1))
		panes[i].SetItems(sampleConversation()[:2+i%3])
	}
	s.SetPanes(panes...)
	s.Focus()
	s.Update(tea.KeyPressMsg{Code: 'l', Text: "l"})
	s.Update(tea.KeyPressMsg{Code: 'l', Text: "l"})
	return s
}

// overlayPane reports whether a golden pane is a modal that is not sized to the whole area.
func overlayPane(name string) bool {
	base, _, _ := strings.Cut(name, "-")
	return base == "approval" || base == "confirm" || base == "help" || base == "quit" || base == "ask"
}

// sampleFiles is a workspace listing as the harness gives it for @ completion.
func sampleFiles() []string {
	return []string{".gitignore", "README.md", "docs/", "docs/a b.md", "go.mod", "harness/", "harness/api/", "harness/api/api.go",
		"harness/events.go", "harness/mentions.go", "harness/projection.go", "main.go", "store/", "store/append.go",
		"store/checkpoint.go", "store/event.go", "store/event_zstd.go", "store/kv_bolt.go", "store/testdata/", "views/", "views/input.go"}
}

// popupView shows the input's completion popup.
type popupView struct {
	in *Input
	w  int
}

// View renders the popup.
func (p popupView) View() string { return p.in.PopupView(p.w) }

// sizer marks a pane whose size the golden test sets.
type sizer struct{ Pane }

func sampleSiblings() []SiblingRow {
	return []SiblingRow{
		{ID: "s1", Dir: "exo", Name: "health-check", Status: StatusRunning, Model: "gpt-5", Steps: 12, TokensIn: 48200, TokensOut: 3100, Cost: 0.42, Drift: 0.12, Current: true},
		{ID: "s2", Dir: "exo", Name: "try-middleware", Status: StatusApproval, Model: "claude-sonnet", Steps: 5, TokensIn: 9100, TokensOut: 800, Cost: 0.07, Drift: 0.45, Parent: "s1", Conflicts: 2},
		{ID: "s3", Dir: "exo", Name: "demo", Status: StatusFinished, Model: "scripted", Scripted: true, Steps: 3, Drift: 0.0},
		{ID: "s4", Dir: "exo", Name: "refactor-all", Status: StatusFailed, Model: "qwen3:8b", Steps: 40, TokensIn: 1200000, TokensOut: 90000, Cost: 0, Drift: 0.81, Parent: "s2"},
		{ID: "s5", Dir: "exo", Name: "idle one", Status: StatusIdle, Model: "gpt-5-mini", Drift: 0.3},
		{ID: "s6", Name: "parked", Status: StatusSuspended, Model: "gpt-5-mini", Drift: 0.05, Parent: "s5", Dir: "website"},
		{ID: "s7", Name: "docs-pass", Status: StatusIdle, Model: "gpt-5-mini", Steps: 140, TokensIn: 2_400_000, Cost: 12.5, Dir: "website", Clients: 2},
		{ID: "s8", Name: "bench", Status: StatusFinished, Model: "gpt-5", Dir: "exo"},
		{ID: "s9", Name: "flaky-test", Status: StatusIdle, Model: "gpt-5", Dir: "exo", Parent: "s8"},
	}
}

// remoteSiblings are sessions of this daemon and of two others on a shared store: one live,
// one gone (T takes it over), one orphaned.
func remoteSiblings() []SiblingRow {
	return []SiblingRow{
		{ID: "r1", Dir: "exo", Name: "health-check", Status: StatusRunning, Model: "gpt-5", Steps: 12, TokensIn: 48200, TokensOut: 3100, Cost: 0.42, Drift: 0.12},
		{ID: "r2", Dir: "exo", Name: "try-middleware", Status: StatusRunning, Model: "claude-sonnet", Steps: 5, TokensIn: 9100, TokensOut: 800, Cost: 0.07, Drift: 0.45, Conflicts: 1, Node: "build-box", Live: true},
		{ID: "r3", Dir: "exo", Name: "nightly-bench", Status: StatusIdle, Model: "gpt-5-mini", Steps: 40, TokensIn: 1200000, TokensOut: 90000, Cost: 3.1, Drift: 0.2, Node: "laptop-7f3a", Parent: "r1"},
		{ID: "r4", Dir: "website", Name: "docs-pass", Status: StatusIdle, Model: "gpt-5-mini", Steps: 140, Drift: 0.05, Node: "old-runner", Orphaned: true},
	}
}

// mcpConversation is a turn that used MCP servers' tools: shown with their server.
func mcpConversation() []ConvItem {
	return []ConvItem{
		{Kind: KindUser, Text: "Summarise the open issues into notes/plan.md."},
		{Kind: KindTool, Tool: "mcp__github__list_issues", ArgsSummary: `{"state":"open"}`, Status: ToolOK, Duration: 820 * time.Millisecond,
			Output: "#12 flaky test in store\n#15 timeline jumps on resize\n"},
		{Kind: KindTool, Tool: "mcp__fs__write_file", ArgsSummary: "notes/plan.md", Status: ToolFailed, ExitCode: 1, Duration: 40 * time.Millisecond,
			Output: "refused before calling MCP server fs: path \"notes/plan.md\": notes/plan.md is outside the session's scope\n"},
		{Kind: KindNotice, Text: "mcp fs crashed: the server exited between calls; it will be started again on the next call"},
		{Kind: KindTool, Tool: "mcp__fs__write_file", ArgsSummary: "src/plan.md", Status: ToolRunning},
	}
}

func sampleStatus() StatusInfo {
	return StatusInfo{Session: "health-check", Model: "scripted-demo", Scripted: true, ContextPct: 37, TokensIn: 48200, TokensOut: 3100,
		Cost: 0.42, TTFT: 420 * time.Millisecond, Network: false, Confined: true}
}

func TestGolden(t *testing.T) {
	for name, build := range goldenPanes {
		for theme, mk := range testThemes {
			for _, term := range terminals {
				t.Run(fmt.Sprintf("%s/%s/%dx%d", name, theme, term[0], term[1]), func(t *testing.T) {
					c := NewCommon(mk())
					p := build(c, term[0])
					base, _, _ := strings.Cut(name, "-")
					w, h := layout(base, term[0], term[1])
					if s, ok := p.(sizer); ok {
						s.SetSize(w, h)
					}
					view := p.View()
					if _, ok := p.(sizer); ok && !overlayPane(name) {
						checkSize(t, view, w, h)
					}
					checkMaxWidth(t, view, w, h)
					golden.RequireEqual(t, ansi.Strip(view))
				})
			}
		}
	}
}

// checkMaxWidth fails if the view exceeds w×h.
func checkMaxWidth(t *testing.T, view string, w, h int) {
	t.Helper()
	checkControls(t, view)
	lines := splitLines(view)
	if len(lines) > h {
		t.Errorf("view has %d lines, max %d", len(lines), h)
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			t.Errorf("line %d: %d cells > %d", i, ansi.StringWidth(l), w)
		}
	}
}

// samplePickerRows are sessions for the resume picker: this directory's first.
func samplePickerRows() []PickerRow {
	return []PickerRow{
		{ID: "a1b2c3d4e5f6", Name: "health-check", Dir: "exo", Here: true, Status: StatusIdle, Age: "3m", Prompt: "why is the store twice the size of Crush's? measure it per bucket"},
		{ID: "b2c3d4e5f6a1", Name: "try-middleware", Dir: "exo", Here: true, Status: StatusRunning, Age: "1h", Prompt: "add a retry middleware to the HTTP client"},
		{ID: "c3d4e5f6a1b2", Name: "bench", Dir: "exo", Here: true, Status: StatusFinished, Age: "2d", Prompt: "run BenchmarkAppend before and after"},
		{ID: "d4e5f6a1b2c3", Name: "docs-pass", Dir: "website", Status: StatusApproval, Age: "5d", Prompt: "proofread the getting started page\nand fix links"},
		{ID: "e5f6a1b2c3d4", Name: "bench-site", Dir: "website", Status: StatusFailed, Age: "3w", Prompt: "lighthouse score of the landing page"},
	}
}
