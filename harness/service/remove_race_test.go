package service

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"exo/harness"
	"exo/harness/api"
	"exo/sandbox"
)

// TestRemoveRacesTurn starts a turn and removes its session at the same moment, 25 times: the
// removal is refused (a turn runs), or the turn is refused (the session is gone or going), or
// the turn ran whole before the removal; never does a turn begin on a removed session and
// fail part-way on it.
func TestRemoveRacesTurn(t *testing.T) {
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	script := filepath.Join(t.TempDir(), "s.yaml")
	os.WriteFile(script, []byte("turns:\n  - text: done\n"), 0o644)
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "s", Provider: "scripted", BaseURL: script}); err != nil {
		t.Fatal(err)
	}
	svc := New(h, Options{})
	t.Cleanup(func() { svc.Close() })
	ctx := context.Background()
	removedFirst, turnedFirst := 0, 0
	for i := range 25 {
		s, err := h.NewSession(harness.NewSessionOptions{Name: "r", Workspace: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var ts api.TurnStarted
		var startErr, rmErr error
		start := make(chan struct{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			ts, startErr = svc.StartTurn(ctx, api.TurnRequest{Session: s.ID, Text: "go", Headless: true})
		}()
		go func() {
			defer wg.Done()
			<-start
			_, rmErr = svc.RemoveSession(ctx, s.ID)
		}()
		close(start)
		wg.Wait()
		if startErr != nil {
			if !errors.Is(startErr, harness.ErrNoSession) && !errors.Is(startErr, api.ErrBusy) && !errors.Is(startErr, api.ErrNotFound) {
				t.Fatalf("round %d: the turn was refused with %v", i, startErr)
			}
			removedFirst++
			continue
		}
		_, turnErr := svc.WaitTurn(ctx, s.ID, ts.ID)
		if rmErr == nil && turnErr != nil {
			t.Fatalf("round %d: the session was removed and its turn began on it anyway: %v", i, turnErr)
		}
		if rmErr != nil && !errors.Is(rmErr, api.ErrBusy) {
			t.Fatalf("round %d: the removal failed with %v", i, rmErr)
		}
		turnedFirst++
		if rmErr != nil {
			if _, err := svc.RemoveSession(ctx, s.ID); err != nil {
				t.Fatalf("round %d: removal after the turn: %v", i, err)
			}
		}
	}
	t.Logf("the removal won %d times, the turn %d", removedFirst, turnedFirst)
}
