package governance

import (
	"encoding/json"
	"fmt"
	"testing"

	"exo/harness"
	"exo/store"
)

// openHarness opens a real harness under a temporary EXO_HOME.
func openHarness(t *testing.T) *harness.Harness {
	t.Helper()
	h, err := harness.Open(t.TempDir(), harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// newSession creates a session in workspace ws with an optional scope.
func newSession(t *testing.T, h *harness.Harness, name, ws string, scope *Scope) *harness.Session {
	t.Helper()
	s, err := h.NewSession(harness.NewSessionOptions{Name: name, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	if scope != nil {
		mustAppend(t, h, s.ID, ScopeRecord(*scope, harness.ActorUser, "new"))
	}
	return s
}

func mustAppend(t *testing.T, h *harness.Harness, id string, recs ...store.Record) []harness.Event {
	t.Helper()
	evs, err := h.Append(id, recs...)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// snapshot is a workspace.snapshot record of changed paths ("path" modified, "-path" deleted).
func snapshot(paths ...string) store.Record {
	var cs []harness.FileChange
	for _, p := range paths {
		kind := "modified"
		if p[0] == '-' {
			p, kind = p[1:], "deleted"
		}
		cs = append(cs, harness.FileChange{Path: p, Kind: kind})
	}
	return harness.MustRecord(harness.TypeWorkspaceSnapshot, harness.ActorHarness,
		harness.WorkspaceSnapshot{Commit: "c0ffee", Changed: cs})
}

var callN int

// write returns the tool.started and tool.completed records of a write_file call.
func write(path string, failed bool) []store.Record {
	callN++
	id := fmt.Sprint("w", callN)
	args, _ := json.Marshal(map[string]string{"path": path, "content": "x"})
	return []store.Record{
		harness.MustRecord(harness.TypeToolStarted, harness.ToolActor("write_file"),
			harness.ToolStarted{CallID: id, Tool: "write_file", Args: args}),
		harness.MustRecord(harness.TypeToolCompleted, harness.ToolActor("write_file"),
			harness.ToolCompleted{CallID: id, Tool: "write_file", Output: "ok", IsError: failed}),
	}
}
