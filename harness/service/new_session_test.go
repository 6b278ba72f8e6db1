package service

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/api"
	"exo/sandbox"
)

// A session asked for on a folder that is not there (a mistyped --workspace) is refused at once
// with the path and what to do, instead of failing at its first turn; nothing is recorded.
func TestNewSessionNeedsAnExistingFolder(t *testing.T) {
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	svc := New(h, Options{})
	defer svc.Close()
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ ws, want string }{
		{filepath.Join(dir, "missing"), "no such folder"},
		{file, "not a folder"},
	} {
		_, err := svc.NewSession(ctx, api.NewSessionRequest{Name: "x", Workspace: c.ws})
		if !errors.Is(err, api.ErrInvalid) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.ws) {
			t.Errorf("workspace %s: %v", c.ws, err)
		}
	}
	if all, err := svc.ListSessions(ctx); err != nil || len(all) != 0 {
		t.Fatalf("sessions after refusals: %v %v", all, err)
	}
	if se, err := svc.NewSession(ctx, api.NewSessionRequest{Name: "x", Workspace: dir}); err != nil || se.Workspace != dir {
		t.Fatalf("an existing folder: %+v %v", se, err)
	}
}
