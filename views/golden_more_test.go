package views

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"exo/themes"
)

// Goldens of the panes and states the first set left out: the quit question, a conflict diff in
// the detail overlay, and every pane empty (what a newcomer sees first), the conversation's with
// the text the app shows while no model is registered.
func init() {
	goldenPanes["quit"] = func(c *Common, _ int) interface{ View() string } {
		return sizer{NewQuitConfirm(c, []string{"health-check", "try-middleware"})}
	}
	goldenPanes["detail-diff"] = func(c *Common, _ int) interface{ View() string } {
		return sizer{NewDetail(c, "changes both made: try-middleware and health-check", []byte(
			"cmd/server/main.go (health-check)\n--- a/cmd/server/main.go\n+++ b/cmd/server/main.go\n@@ -12,2 +12,3 @@\n http.HandleFunc(\"/\", root)\n+http.HandleFunc(\"/healthz\", health)\n-// TODO\n"+
				"\ncmd/server/main.go (try-middleware)\n--- a/cmd/server/main.go\n+++ b/cmd/server/main.go\n@@ -12,2 +12,3 @@\n http.HandleFunc(\"/\", root)\n+http.Handle(\"/\", logging(mux))\n"))}
	}
	goldenPanes["conversation-empty"] = func(c *Common, _ int) interface{ View() string } {
		p := NewConversation(c)
		p.SetTitle("quiet-wood-b9a2")
		p.SetEmptyText("No model is registered yet.\n\nType /model demo for the offline scripted demo (always shown as scripted), or register a model in a shell: exo model register NAME --provider openai|anthropic|openai-compatible (exo model register --help says more).")
		p.Focus()
		return sizer{p}
	}
	goldenPanes["timeline-empty"] = func(c *Common, _ int) interface{ View() string } {
		p := NewTimeline(c)
		p.SetSource(sampleRows(0))
		return sizer{p}
	}
	goldenPanes["siblings-empty"] = func(c *Common, _ int) interface{ View() string } {
		return sizer{NewSiblings(c)}
	}
	goldenPanes["approval-held"] = func(c *Common, _ int) interface{ View() string } {
		a := NewApproval(c, ApprovalRequest{ID: "a3", Tool: "bash", Args: "rm -rf ./build && make release", Reason: "this tool's policy is ask"})
		a.Hold()
		return sizer{a}
	}
	goldenPanes["sandbox-empty"] = func(c *Common, _ int) interface{ View() string } {
		return sizer{NewSandbox(c, 100)}
	}
	goldenPanes["sandbox-refused"] = func(c *Common, _ int) interface{ View() string } {
		p := NewSandbox(c, 100)
		p.Write("tick 1\ntick 2\n")
		p.SetStatus(SandboxStatus{Command: "rm -rf build && make", NoExitCode: true})
		return sizer{p}
	}
}

// TestDetailColoursADiff: the conflict diff (d in the sessions pane) is coloured like the
// conversation's diffs, added and removed lines in the theme's colours, in both themes.
func TestDetailColoursADiff(t *testing.T) {
	for name, mk := range testThemes {
		c := NewCommon(mk())
		d := NewDetail(c, "conflicts with x", []byte("a.go (x)\n--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-old line\n+new line\n"))
		d.SetSize(60, 12)
		v := d.View()
		for _, want := range []string{c.Styles.Diff.Add.Render("+new line"), c.Styles.Diff.Remove.Render("-old line"), c.Styles.Diff.Hunk.Render("@@ -1 +1 @@")} {
			if !strings.Contains(v, want) {
				t.Fatalf("%s: %q is not coloured:\n%q", name, ansi.Strip(want), v)
			}
		}
	}
}

// TestCollapsedCutOutputSaysTheLogHoldsMore: a long output the harness cut in the middle (head,
// a marker, tail) collapsed says how much only the log holds, not just the kept lines' count.
func TestCollapsedCutOutputSaysTheLogHoldsMore(t *testing.T) {
	c := NewConversation(NewCommon(themes.Dark()))
	c.SetSize(100, 12)
	out := "1\n2\n3\n… 15710 bytes left out here (the log holds all of it) …\n4998\n4999\n5000\nLAST\n"
	c.SetItems([]ConvItem{{Kind: KindTool, Tool: "bash", ArgsSummary: "seq 1 5000; echo LAST", Status: ToolOK, Output: out}})
	if v := ansi.Strip(c.View()); !strings.Contains(v, "… 5 more lines and 15710 bytes only the log holds · enter expands") {
		t.Fatalf("collapsed cut output:\n%s", v)
	}
}
