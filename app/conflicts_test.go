package app

import (
	"context"
	"os"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/harness"
	"exo/harness/service"
	"exo/sandbox"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// TestConflictDiff makes two siblings change the same file in their own copies and opens the
// diff of the two versions from the siblings pane with d.
func TestConflictDiff(t *testing.T) {
	screen := conflictScreen(t, "echo from-alpha > shared.txt", "echo from-beta > shared.txt")
	if !strings.Contains(screen, "-from-alpha") || !strings.Contains(screen, "+from-beta") {
		t.Fatalf("no diff of the two versions:\n%s", screen)
	}
}

// TestConflictDiffSameChange: when both siblings made the same change, d says so instead of
// opening an empty diff.
func TestConflictDiffSameChange(t *testing.T) {
	screen := conflictScreen(t, "echo same > shared.txt", "echo same > shared.txt")
	if !strings.Contains(screen, "shared.txt: both sessions changed it, and left it the same") {
		t.Fatalf("identical changes show no explanation:\n%s", screen)
	}
}

// conflictScreen makes alpha and its fork beta run one command each, opens the conflict diff
// from the siblings pane with d, and returns the screen.
func conflictScreen(t *testing.T, inAlpha, inBeta string) string {
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	svc := service.New(h, service.Options{})
	defer svc.Close()
	a, _ := h.NewSession(harness.NewSessionOptions{Name: "alpha", Workspace: t.TempDir()})
	ctx := context.Background()
	h.UserExec(ctx, a.ID, "echo base > shared.txt", harness.ExecOptions{})
	b, err := h.Fork(a.ID, 0, harness.ForkOptions{Name: "beta"})
	if err != nil {
		t.Fatal(err)
	}
	h.UserExec(ctx, a.ID, inAlpha, harness.ExecOptions{})
	h.UserExec(ctx, b.ID, inBeta, harness.ExecOptions{})

	m := New(svc, Options{Session: a.ID, Theme: "dark"})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 44})
	m.Update(m.attachCmd()())
	m.Update(m.siblingsCmd()())
	m.setFocus(focusSiblings)
	for i := 0; i < 3; i++ {
		if r, ok := m.siblings.Selected(); ok && r.ID == b.ID {
			break
		}
		m.Update(tea.KeyPressMsg{Code: 'j', Mod: tea.ModAlt})
	}
	if r, _ := m.siblings.Selected(); r.ID != b.ID || r.Conflicts == 0 {
		t.Fatalf("sibling row %+v: want beta with a conflict", r)
	}
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'd', Mod: tea.ModAlt}) // the pane asks for the diff
	_, cmd = m.Update(cmd())
	m.Update(cmd())
	if m.overlay == nil {
		t.Fatal("d opened nothing")
	}
	return ansi.Strip(m.render())
}

// TestConflictDiffNone: d on a sibling that changed no file the current session changed says
// there are no conflicts, as a note, not "not found: …" as an error; so does the answer of the
// harness when the row was drawn with conflicts that have gone since.
func TestConflictDiffNone(t *testing.T) {
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	svc := service.New(h, service.Options{})
	defer svc.Close()
	a, _ := h.NewSession(harness.NewSessionOptions{Name: "alpha", Workspace: t.TempDir()})
	b, err := h.Fork(a.ID, 0, harness.ForkOptions{Name: "beta"})
	if err != nil {
		t.Fatal(err)
	}
	m := New(svc, Options{Session: a.ID, Theme: "dark"})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 44})
	m.Update(m.attachCmd()())
	m.Update(m.siblingsCmd()())
	m.setFocus(focusSiblings)
	for i := 0; i < 3; i++ {
		if r, ok := m.siblings.Selected(); ok && r.ID == b.ID {
			break
		}
		m.Update(tea.KeyPressMsg{Code: 'j', Mod: tea.ModAlt})
	}
	if r, _ := m.siblings.Selected(); r.ID != b.ID || r.Conflicts != 0 {
		t.Fatalf("sibling row %+v: want beta without conflicts", r)
	}
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'd', Mod: tea.ModAlt})
	for i := 0; cmd != nil && i < 3; i++ {
		msg := cmd()
		if _, ok := msg.(fadeMsg); ok {
			break
		}
		_, cmd = m.Update(msg)
	}
	want := "no conflicts between alpha and beta"
	if m.overlay != nil || m.info.MessageErr || !strings.Contains(m.info.Message, want) || strings.Contains(m.info.Message, "not found") {
		t.Fatalf("d without conflicts: overlay %v, message %q (error %v)", m.overlay != nil, m.info.Message, m.info.MessageErr)
	}
	// The harness's answer when the row is stale (asked without looking at the row).
	m.info.Message = ""
	m.siblings.SetRows(nil)
	m.Update(m.conflictDiffCmd(b.ID, "beta")())
	if m.info.MessageErr || !strings.Contains(m.info.Message, want) {
		t.Fatalf("the harness's answer: message %q (error %v)", m.info.Message, m.info.MessageErr)
	}
}
