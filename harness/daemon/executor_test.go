package daemon

import (
	"context"
	"errors"
	"strings"
	"testing"

	"exo/harness/api"
)

// TestSelectExecutorOverTheSocket selects an executor through the daemon: the choice is
// recorded and listed; one that cannot run here is refused as invalid with its reason.
func TestSelectExecutorOverTheSocket(t *testing.T) {
	f := serve(t, 0)
	ctx := context.Background()
	s, err := f.c.NewSession(ctx, api.NewSessionRequest{Name: "x"})
	if err != nil {
		t.Fatal(err)
	}
	in, err := f.c.SelectExecutor(ctx, s.ID, "acp:/bin/cat")
	if err != nil || !in.Usable || in.Binary != "/bin/cat" {
		t.Fatalf("select: %+v %v", in, err)
	}
	all, err := f.c.ListSessions(ctx)
	if err != nil || len(all) != 1 || all[0].Executor != "acp:/bin/cat" {
		t.Fatalf("sessions %+v %v", all, err)
	}
	if _, err := f.c.SelectExecutor(ctx, s.ID, "acp:exo-no-such-agent"); !errors.Is(err, api.ErrInvalid) || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("a missing agent: %v", err)
	}
}
