package api

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// TypeInfo describes one event type: its family (for glyphs and colours), a factory for its
// payload and a one-line summary.
type TypeInfo struct {
	Family  string
	New     func() any
	Summary func(p any) string
}

// Event families, used by the timeline for glyphs and colours.
const (
	FamilySession   = "session"
	FamilyUser      = "user"
	FamilyModel     = "model"
	FamilyTool      = "tool"
	FamilyWorkspace = "workspace"
	FamilyPolicy    = "policy"
	FamilyError     = "error"
)

// eventTypes is the one place where every event type is registered.
var eventTypes = map[string]TypeInfo{
	TypeSessionCreated: typed(FamilySession, func(p *SessionCreated) string {
		return fmt.Sprintf("session %s created in %s", p.Name, p.Workspace)
	}),
	TypeInvocationReceived: typed(FamilyUser, func(p *InvocationReceived) string { return oneLine(p.Text) }),
	TypeStepStarted:        typed(FamilyModel, func(p *StepStarted) string { return fmt.Sprintf("step %d", p.Step) }),
	TypeModelRequested: typed(FamilyModel, func(p *ModelRequested) string {
		return fmt.Sprintf("→ %s (%d messages)", p.Model, p.Messages)
	}),
	TypeModelCompleted: typed(FamilyModel, summarizeCompletion),
	TypeModelFailed:    typed(FamilyError, func(p *ModelFailed) string { return oneLine(p.Error) }),
	TypeToolStarted: typed(FamilyTool, func(p *ToolStarted) string {
		return p.Tool + " " + oneLine(firstNonEmpty(p.Summary, string(p.Args)))
	}),
	TypeToolCompleted: typed(FamilyTool, summarizeToolResult),
	TypeTaskStarted:   typed(FamilyTool, func(p *TaskStarted) string { return p.TaskID + " " + oneLine(p.Command) }),
	TypeTaskCompleted: typed(FamilyTool, func(p *TaskCompleted) string {
		return fmt.Sprintf("%s exit %d %s", p.TaskID, p.ExitCode, p.Killed)
	}),
	TypeArtifactCreated: typed(FamilyWorkspace, func(p *ArtifactCreated) string {
		return fmt.Sprintf("%s %s (%d bytes)", p.ID[:min(12, len(p.ID))], p.Name, p.Size)
	}),
	TypeWorkspaceSnapshot: typed(FamilyWorkspace, func(p *WorkspaceSnapshot) string {
		if p.External {
			return fmt.Sprintf("external changes %s: %s", short(p.Commit), changedSummary(p.Changed))
		}
		return fmt.Sprintf("snapshot %s: %s", short(p.Commit), changedSummary(p.Changed))
	}),
	TypeWorkspaceRestored: typed(FamilyWorkspace, func(p *WorkspaceRestored) string {
		return fmt.Sprintf("files restored to @%d (%s)", p.AtSeq, changedSummary(p.Changed))
	}),
	TypeSecretDenied:    typed(FamilyPolicy, func(p *SecretDenied) string { return "denied " + p.Name + ": " + p.Reason }),
	TypePolicyViolation: typed(FamilyPolicy, func(p *PolicyViolation) string { return p.Action + " " + p.Rule + " " + p.Path }),
	TypeApprovalRequested: typed(FamilyPolicy, func(p *ApprovalRequested) string {
		return "approve " + p.Tool + "? " + oneLine(p.Summary)
	}),
	TypeApprovalResolved: typed(FamilyPolicy, func(p *ApprovalResolved) string { return p.Decision + " " + p.CallID }),
	TypeCompactionApplied: typed(FamilyModel, func(p *CompactionApplied) string {
		return fmt.Sprintf("%s @%d..%d", p.Kind, p.FromSeq, p.ToSeq)
	}),
	TypeTurnCancelled: typed(FamilyError, func(p *TurnCancelled) string { return "cancelled: " + p.Reason }),
	TypeSessionForked: typed(FamilySession, func(p *SessionForked) string {
		from := p.FromName
		if from == "" {
			from = p.FromBranch // forks recorded before names were
		}
		return fmt.Sprintf("forked from %s@%d as %s", from, p.AtSeq, p.Name)
	}),
	TypeSessionRewound: typed(FamilySession, func(p *SessionRewound) string {
		// The abandoned branch has no name: say which events it holds (the timeline's b shows them).
		if p.AbandonedAt <= p.ToSeq {
			return fmt.Sprintf("rewound to @%d (nothing after it to abandon)", p.ToSeq)
		}
		return fmt.Sprintf("rewound to @%d (@%d..%d kept on an abandoned branch)", p.ToSeq, p.ToSeq+1, p.AbandonedAt)
	}),
	TypeSessionSuspended: typed(FamilySession, func(p *SessionSuspended) string { return "suspended " + p.Reason }),
	TypeSessionResumed:   typed(FamilySession, func(p *SessionResumed) string { return "resumed " + p.Reason }),
	TypeSessionFinished:  typed(FamilySession, func(p *SessionFinished) string { return "finished: " + oneLine(p.Summary) }),
	TypeHandoffRecorded: typed(FamilySession, func(p *HandoffRecorded) string {
		from, to := p.FromName, p.ToName
		if from == "" || to == "" {
			from, to = p.From, p.To // names were not recorded
		}
		return fmt.Sprintf("handoff %s → %s: %s", from, to, oneLine(p.Note))
	}),
}

// typed builds a TypeInfo for payload type T with a summary function.
func typed[T any](family string, sum func(*T) string) TypeInfo {
	return TypeInfo{
		Family:  family,
		New:     func() any { return new(T) },
		Summary: func(p any) string { return sum(p.(*T)) },
	}
}

// RegisterType adds an event type (used by executors and governance for their own types).
// It panics on a duplicate, which is a programming error found at start-up.
func RegisterType(name string, info TypeInfo) {
	if _, dup := eventTypes[name]; dup {
		panic("harness: event type registered twice: " + name)
	}
	eventTypes[name] = info
}

// LookupType returns the registered info of an event type.
func LookupType(name string) (TypeInfo, bool) {
	t, ok := eventTypes[name]
	return t, ok
}

// TypeNames lists every registered event type, sorted.
func TypeNames() []string {
	out := make([]string, 0, len(eventTypes))
	for k := range eventTypes {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Decode parses an event's payload into its registered type.
func Decode(e Event) (any, error) {
	info, ok := eventTypes[e.Type]
	if !ok {
		return nil, fmt.Errorf("event %d: unknown type %q", e.Seq, e.Type)
	}
	p := info.New()
	if err := json.Unmarshal(e.Data, p); err != nil {
		return nil, fmt.Errorf("event %d (%s): %w", e.Seq, e.Type, err)
	}
	return p, nil
}

// Summary returns a one-line description of an event; unknown or malformed payloads still
// get a line.
func Summary(e Event) string {
	p, err := Decode(e)
	if err != nil {
		return oneLine(string(e.Data))
	}
	return eventTypes[e.Type].Summary(p)
}

// Family returns an event's family, or "" for an unknown type.
func Family(typ string) string { return eventTypes[typ].Family }

func summarizeCompletion(p *ModelCompleted) string {
	var parts []string
	if r := ReasoningText(p.Reasoning); r != "" {
		parts = append(parts, "thought: "+clip(oneLine(r), 80))
	} else if len(p.Reasoning) > 0 {
		parts = append(parts, "thought (hidden)")
	}
	if p.Text != "" {
		parts = append(parts, oneLine(p.Text))
	}
	for _, c := range p.ToolCalls {
		parts = append(parts, "→"+c.Name)
	}
	for _, c := range p.CutCalls {
		parts = append(parts, fmt.Sprintf("→%s (not run: %d bytes of arguments)", c.Name, c.Bytes))
	}
	for _, sk := range p.Skipped {
		parts = append(parts, "skipped "+sk.Type+countSuffix(sk.Count))
	}
	if p.Cut != "" {
		est := ""
		if p.UsageEstimated {
			est = " estimated"
		}
		parts = append(parts, fmt.Sprintf("[%s; %d/%d tok%s]", CutLabel(p.Cut), p.Usage.Input, p.Usage.Output, est))
		return strings.Join(parts, " ")
	}
	parts = append(parts, fmt.Sprintf("[%d/%d tok, %s]", p.Usage.Input, p.Usage.Output, p.StopReason))
	return strings.Join(parts, " ")
}

// countSuffix is "×n" for counts above one.
func countSuffix(n int) string {
	if n > 1 {
		return fmt.Sprintf("×%d", n)
	}
	return ""
}

func summarizeToolResult(p *ToolCompleted) string {
	status := "ok"
	switch {
	case p.Interrupted:
		status = "interrupted"
	case p.Killed != "":
		status = "killed (" + p.Killed + ")"
	case p.ExitCode != nil:
		status = fmt.Sprintf("exit %d", *p.ExitCode)
	case p.IsError:
		status = "error"
	}
	return fmt.Sprintf("%s %s %dms %s", p.Tool, status, p.DurationMs, oneLine(p.Output))
}

func changedSummary(cs []FileChange) string {
	if len(cs) == 0 {
		return "no changes"
	}
	var names []string
	for _, c := range cs[:min(3, len(cs))] {
		names = append(names, c.Path)
	}
	s := strings.Join(names, ", ")
	if len(cs) > 3 {
		s += fmt.Sprintf(" +%d more", len(cs)-3)
	}
	return s
}

// oneLine squeezes text onto one line of at most 200 runes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		return string(r[:199]) + "…"
	}
	return s
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func short(s string) string { return s[:min(len(s), 10)] }

// clip cuts s to n runes, marking the cut.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
