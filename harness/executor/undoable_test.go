package executor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/sandbox"
)

// With no policy naming it, bash runs unasked only where the sandbox keeps what it changes
// undoable (writes confined to the workspace, which exo snapshots, and no network); a session
// given the network, or a machine whose sandbox confines nothing, asks, and a headless turn
// that nobody can answer refuses it. The file tools, whose changes a rewind puts back, run.
func TestBashAsksWhereTheSandboxCannotUndoIt(t *testing.T) {
	full := sandbox.Capabilities{LandlockABI: 7, MountNS: true, NetNS: true}
	for _, c := range []struct {
		caps    sandbox.Capabilities
		network bool
		want    bool
	}{
		{full, false, true},
		{full, true, false},
		{sandbox.Capabilities{MountNS: true}, false, false},             // the network reachable
		{sandbox.Capabilities{LandlockABI: 4}, false, true},             // Landlock cuts TCP
		{sandbox.Capabilities{NetNS: true, UserNS: true}, false, false}, // writes unconfined
		{sandbox.Capabilities{PTY: true, Rlimits: true, Seccomp: true}, false, false},
	} {
		if got := undoableUnder(c.caps, c.network); got != c.want {
			t.Errorf("caps %+v network %v: undoable %v, want %v", c.caps, c.network, got, c.want)
		}
	}

	h, s, ws := setup(t, "demo.yaml")
	if !undoableUnder(h.Capabilities(), false) {
		t.Skip("this machine's sandbox cannot confine a command's writes and network")
	}
	if _, err := h.UpdateSession(s.ID, func(x *harness.Session) error {
		if x.Settings == nil {
			x.Settings = map[string]string{}
		}
		x.Settings["network"] = "on"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	res, err := New(h, Options{Headless: true}).Prompt(context.Background(), s.ID, "write me a hello script", "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, "hello.py")); err != nil {
		t.Fatalf("write_file did not run: %v", err)
	}
	evs, _ := h.Events(s.ID, 0, 0)
	var asked, refused bool
	for _, e := range evs {
		asked = asked || (e.Type == harness.TypeApprovalRequested && strings.Contains(string(e.Data), `"bash"`))
		refused = refused || strings.Contains(string(e.Data), "approval needed for bash")
	}
	if !asked || !refused {
		t.Fatalf("bash with the network on ran unasked (asked %v, refused %v): %+v", asked, refused, res)
	}
}
