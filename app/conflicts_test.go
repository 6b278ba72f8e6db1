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
	h.UserExec(ctx, a.ID, "echo from-alpha > shared.txt", harness.ExecOptions{})
	h.UserExec(ctx, b.ID, "echo from-beta > shared.txt", harness.ExecOptions{})

	m := New(svc, Options{Session: a.ID, Theme: "dark"})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 44})
	m.Update(m.attachCmd()())
	m.Update(m.siblingsCmd()())
	m.setFocus(focusSiblings)
	for i := 0; i < 3; i++ {
		if r, ok := m.siblings.Selected(); ok && r.ID == b.ID {
			break
		}
		m.Update(tea.KeyPressMsg{Code: 'j', Text: "j"})
	}
	if r, _ := m.siblings.Selected(); r.ID != b.ID || r.Conflicts == 0 {
		t.Fatalf("sibling row %+v: want beta with a conflict", r)
	}
	cmd := m.conflictDiffCmd()
	m.Update(cmd())
	screen := ansi.Strip(m.render())
	if m.overlay == nil || !strings.Contains(screen, "-from-alpha") || !strings.Contains(screen, "+from-beta") {
		t.Fatalf("no diff of the two versions:\n%s", screen)
	}
}
