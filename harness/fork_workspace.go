package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"exo/sandbox"
)

// alternatesKey is the session setting listing shadow repositories whose snapshots a forked
// workspace may restore (its ancestors'), one per line.
const alternatesKey = "shadow_alternates"

// forkWithWorkspace forks a session and gives the sibling its own working copy whose files
// match the source's snapshot at seq.
func (h *Harness) forkWithWorkspace(src *Session, seq uint64, o ForkOptions) (*Session, error) {
	from, err := forkBranch(src, o)
	if err != nil {
		return nil, err
	}
	commit := ""
	if tracked, err := h.tracksFiles(src.ID); err != nil {
		return nil, err
	} else if tracked {
		head, _, err := h.st.Head(from)
		if err != nil {
			return nil, err
		}
		if seq == 0 || seq > head {
			seq = head
		}
		if commit, err = h.snapshotAt(from, seq); err != nil {
			return nil, err
		}
	}
	dst := filepath.Join(h.Home(), "workspaces", NewID())
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return nil, fmt.Errorf("fork %s: %w", src.Name, err)
	}
	kind, err := sandbox.CloneWorkspace(src.Workspace, dst)
	if err != nil {
		return nil, fmt.Errorf("fork %s: copy the workspace: %w", src.Name, err)
	}
	alts := append([]string{sandbox.ShadowDir(h.Home(), src.Workspace)}, splitLines(src.Settings[alternatesKey])...)
	o.Workspace = dst
	n, err := h.forkEvents(src.ID, seq, o, map[string]string{alternatesKey: strings.Join(alts, "\n"), "workspace_kind": kind, "project": projectOf(src)})
	if err != nil {
		os.RemoveAll(dst)
		return nil, err
	}
	if commit == "" {
		return n, nil
	}
	if err := h.restoreCommit(n, commit, seq); err != nil {
		return n, fmt.Errorf("fork %s: the sibling %s exists but its files could not be set to event %d: %w", src.Name, n.Name, seq, err)
	}
	return n, nil
}

// projectOf names the project a session works on: its own setting, else its workspace.
func projectOf(s *Session) string {
	if p := s.Settings["project"]; p != "" {
		return p
	}
	return s.Workspace
}

// splitLines splits a newline-separated setting, dropping empty lines.
func splitLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}
