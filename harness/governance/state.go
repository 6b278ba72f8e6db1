package governance

import (
	"encoding/json"
	"fmt"
	"slices"

	"exo/harness"
)

// State is governance's projection of one session's history: its workspace and scope, the files
// it changed and where, its conflicts, incoming handoffs and closeout facts. Apply folds one event;
// a fork's State includes what it inherited, so scopes and changes carry over.
type State struct {
	Session    string             `json:"session"`
	Head       uint64             `json:"head"`
	Workspace  string             `json:"workspace,omitempty"`
	Scope      Scope              `json:"scope"`
	Scoped     bool               `json:"scoped"` // a scope.set was seen
	Files      map[string]*Touch  `json:"files,omitempty"`
	Conflicts  []ConflictDetected `json:"conflicts,omitempty"`
	Incoming   []HandoffRecord    `json:"incoming,omitempty"`
	Delivered  map[string]bool    `json:"delivered,omitempty"` // handoff positions already delivered
	Finished   bool               `json:"finished"`
	Summary    string             `json:"summary,omitempty"` // of the last session.finished
	Turns      int                `json:"turns"`
	Tools      map[string]int     `json:"tools,omitempty"`
	Failures   []string           `json:"failures,omitempty"`
	Violations []string           `json:"violations,omitempty"`

	writes map[string]string // open write-tool calls: call id → path
}

// Touch is one changed path with the events that changed it.
type Touch struct {
	Path string `json:"path"`
	Kind string `json:"kind"` // the latest change: added, modified, deleted, renamed
	// Origins maps each branch whose events changed the path to the latest such seq. An
	// inherited change keeps its branch, so a fork and its parent share it and do not conflict
	// over it; one entry per branch keeps the projection bounded however often a file changes.
	Origins map[string]uint64 `json:"origins"`
}

// maxNotes bounds the failures and violations kept for the memento.
const maxNotes = 50

// NewState returns the empty projection for session id.
func NewState(sessionID string) *State {
	return &State{Session: sessionID, Files: map[string]*Touch{}, Delivered: map[string]bool{},
		Tools: map[string]int{}, writes: map[string]string{}}
}

// Apply folds one event into the state; events of unknown or malformed types only move the head.
func (s *State) Apply(e harness.Event) {
	s.Head = e.Seq
	if e.Type == harness.TypeHandoffRecorded {
		s.applyHandoff(e)
		return
	}
	fn, ok := appliers[e.Type]
	if !ok {
		return
	}
	p, err := harness.Decode(e)
	if err != nil {
		return
	}
	fn(s, e, p)
}

// appliers folds each event type that governance cares about.
var appliers = map[string]func(*State, harness.Event, any){
	harness.TypeSessionCreated: func(s *State, _ harness.Event, p any) {
		s.Workspace = p.(*harness.SessionCreated).Workspace
	},
	harness.TypeSessionForked: func(s *State, _ harness.Event, p any) {
		s.Workspace = firstNonEmpty(p.(*harness.SessionForked).Workspace, s.Workspace)
	},
	TypeScopeSet: func(s *State, _ harness.Event, p any) {
		s.Scope, s.Scoped = p.(*ScopeSet).Scope, true
	},
	harness.TypeInvocationReceived: func(s *State, _ harness.Event, _ any) { s.Turns++ },
	harness.TypeToolStarted:        (*State).applyToolStart,
	harness.TypeToolCompleted:      (*State).applyToolResult,
	harness.TypeWorkspaceSnapshot: func(s *State, e harness.Event, p any) {
		if snap := p.(*harness.WorkspaceSnapshot); snap.External || snap.Baseline {
			return // seen while the session was not working, or there before it began: not its changes
		}
		for _, c := range p.(*harness.WorkspaceSnapshot).Changed {
			s.touch(c.Path, c.Kind, e)
			if c.From != "" {
				s.touch(c.From, "deleted", e)
			}
		}
	},
	harness.TypePolicyViolation: func(s *State, e harness.Event, _ any) {
		s.Violations = note(s.Violations, harness.Summary(e))
	},
	harness.TypeModelFailed: func(s *State, e harness.Event, _ any) {
		s.Failures = note(s.Failures, "model: "+harness.Summary(e))
	},
	TypeConflictDetected: func(s *State, _ harness.Event, p any) {
		s.Conflicts = append(s.Conflicts, *p.(*ConflictDetected))
	},
	TypeHandoffDelivered: func(s *State, _ harness.Event, p any) {
		s.Delivered[p.(*HandoffDelivered).Handoff] = true
	},
	harness.TypeSessionFinished: func(s *State, _ harness.Event, p any) {
		s.Finished, s.Summary = true, p.(*harness.SessionFinished).Summary
	},
	harness.TypeSessionResumed: func(s *State, _ harness.Event, _ any) { s.Finished = false },
}

// applyToolStart counts the tool and remembers the path of a write tool until its result.
func (s *State) applyToolStart(_ harness.Event, p any) {
	t := p.(*harness.ToolStarted)
	s.Tools[t.Tool]++
	if !IsWriteTool(t.Tool) {
		return
	}
	var args struct {
		Path     string `json:"path"`
		FilePath string `json:"file_path"`
	}
	if json.Unmarshal(t.Args, &args) == nil && firstNonEmpty(args.Path, args.FilePath) != "" {
		s.writes[t.CallID] = firstNonEmpty(args.Path, args.FilePath)
	}
}

// applyToolResult counts a successful write as a change and notes failures.
func (s *State) applyToolResult(e harness.Event, p any) {
	r := p.(*harness.ToolCompleted)
	failed := r.IsError || r.Interrupted || r.Killed != "" || (r.ExitCode != nil && *r.ExitCode != 0)
	if failed {
		s.Failures = note(s.Failures, fmt.Sprintf("%s failed: %s", r.Tool, oneLine(r.Output)))
	}
	path, ok := s.writes[r.CallID]
	delete(s.writes, r.CallID)
	if !ok || failed {
		return
	}
	kind := "modified"
	if r.Tool == "delete_file" {
		kind = "deleted"
	}
	s.touch(path, kind, e)
}

// touch records a change of path by event e; paths are made workspace-relative when possible.
func (s *State) touch(path, kind string, e harness.Event) {
	if rel, err := RelPath(s.Workspace, path); err == nil {
		path = rel
	}
	t := s.Files[path]
	if t == nil {
		t = &Touch{Path: path, Origins: map[string]uint64{}}
		s.Files[path] = t
	}
	t.Kind = kind
	t.Origins[e.Branch] = max(t.Origins[e.Branch], e.Seq)
}

// Changed returns the changed paths, sorted.
func (s *State) Changed() []string {
	out := make([]string, 0, len(s.Files))
	for p := range s.Files {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// IsWriteTool reports whether a tool's path argument names a file it changes.
func IsWriteTool(name string) bool {
	switch name {
	case "write_file", "edit_file", "create_file", "delete_file":
		return true
	}
	return false
}

// origin names an event's position as "branch@seq".
func origin(e harness.Event) string { return fmt.Sprintf("%s@%d", e.Branch, e.Seq) }

// note appends a line to a bounded list, keeping the newest.
func note(list []string, line string) []string {
	list = append(list, line)
	if len(list) > maxNotes {
		list = list[len(list)-maxNotes:]
	}
	return list
}
