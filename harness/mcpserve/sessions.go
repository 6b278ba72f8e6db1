package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"exo/harness"
	"exo/harness/api"
)

// sessionRow is a session as list_sessions shows it.
type sessionRow struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	Status    string  `json:"status"`
	Running   bool    `json:"running,omitempty"`
	Head      uint64  `json:"head"`
	Model     string  `json:"model,omitempty"`
	Workspace string  `json:"workspace"`
	Parent    string  `json:"parent,omitempty"`
	ParentSeq uint64  `json:"parent_seq,omitempty"`
	Created   string  `json:"created"`
	Steps     int     `json:"steps"`
	Cost      float64 `json:"cost_usd"`
	Drift     float64 `json:"drift"`
	Conflicts int     `json:"conflicts,omitempty"`
	Watchers  int     `json:"watchers,omitempty"`
}

type listIn struct {
	Workspace string `json:"workspace,omitempty" jsonschema:"only sessions whose workspace is this directory (absolute path); default all"`
}

type newIn struct {
	Name      string `json:"name,omitempty" jsonschema:"a short name for the session (default: generated)"`
	Workspace string `json:"workspace,omitempty" jsonschema:"absolute path of the project directory the session works in (default: the directory exo mcp serve was started in)"`
	Model     string `json:"model,omitempty" jsonschema:"a model registered in exo (default: exo's default model)"`
}

type logIn struct {
	Session string `json:"session" jsonschema:"session name, id or unique id prefix"`
	From    uint64 `json:"from,omitempty" jsonschema:"first seq to read (default: so that the last 'limit' events are read)"`
	To      uint64 `json:"to,omitempty" jsonschema:"last seq to read (default: the head)"`
	Limit   int    `json:"limit,omitempty" jsonschema:"most events to return, 1-500 (default 60)"`
	Full    bool   `json:"full,omitempty" jsonschema:"return each event's JSON payload instead of a one-line summary"`
}

type forkIn struct {
	Session string `json:"session" jsonschema:"session to fork: name, id or unique id prefix"`
	Seq     uint64 `json:"seq,omitempty" jsonschema:"fork after this event (read_log shows seqs); default the head"`
	Name    string `json:"name,omitempty" jsonschema:"name of the new sibling session (default: generated)"`
}

type rewindIn struct {
	Session         string `json:"session" jsonschema:"session to rewind: name, id or unique id prefix"`
	Seq             uint64 `json:"seq" jsonschema:"keep events 1..seq and continue from there; workspace files go back to their state at seq"`
	WaitForApproval bool   `json:"wait_for_approval,omitempty" jsonschema:"when no exo app shows the session, wait for the user to open it and answer the approval instead of being refused"`
}

type sayIn struct {
	Session string `json:"session" jsonschema:"session name, id or unique id prefix"`
	Text    string `json:"text" jsonschema:"the message to append as the user's, without running the agent"`
}

// addSessions registers the tools that read and branch sessions.
func (t *tools) addSessions(srv *sdk.Server) {
	add(t, srv, &sdk.Tool{Name: "list_sessions", Title: "List exo sessions",
		Description: "List exo's sessions, oldest first: id, name, status (idle, running, waiting for an approval, failed, finished), " +
			"head seq, model, workspace, parent for forks, cost, drift and conflicts. Start here to find a session for the other tools.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, t.list)
	add(t, srv, &sdk.Tool{Name: "new_session", Title: "Create an exo session",
		Description: "Create an empty exo session working in a project directory. Give it work with run_turn. The directory must be one the " +
			"user opened to other agents: exo mcp serve's directory or beneath it, a folder given with --allow, or the workspace of an existing session.",
		Annotations: &sdk.ToolAnnotations{DestructiveHint: ptr(false)}}, t.newSession)
	add(t, srv, &sdk.Tool{Name: "read_log", Title: "Read a session's event log",
		Description: "Read a session's event log (its current branch, forks include their parent's history up to the fork): one line per event " +
			"with seq, time, actor, type and summary (prompts, model answers, tool calls and results, approvals, snapshots, forks, rewinds). " +
			"By default the last 60 events; page back with from/to. full=true returns each event's JSON payload.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, t.readLog)
	add(t, srv, &sdk.Tool{Name: "fork_session", Title: "Fork a session",
		Description: "Start a sibling session from a session's history up to seq (default its head): it shares the history, gets its own " +
			"copy of the workspace as of that seq, and runs independently. The original is untouched. Returns the new session.",
		Annotations: &sdk.ToolAnnotations{DestructiveHint: ptr(false)}}, t.fork)
	add(t, srv, &sdk.Tool{Name: "rewind_session", Title: "Rewind a session",
		Description: "Rewind a session to seq: it continues from there on a new branch and its workspace files are restored to their state " +
			"at seq. Nothing is deleted (the abandoned events stay in exo's timeline), but uncommitted file changes made after seq are undone " +
			"in the workspace. It needs the user's approval (answered in the exo app; refused when no app shows the session, unless " +
			"wait_for_approval) unless the session's rules set rewind_session to auto. Refused while a turn runs on the session.",
		Annotations: &sdk.ToolAnnotations{DestructiveHint: ptr(true)}}, t.rewind)
	add(t, srv, &sdk.Tool{Name: "say", Title: "Add a message to a session",
		Description: "Append a user message to a session without running its agent (a note it reads on its next turn). To get an answer use run_turn.",
		Annotations: &sdk.ToolAnnotations{DestructiveHint: ptr(false)}}, t.say)
}

func (t *tools) list(ctx context.Context, in listIn) (any, error) {
	ss, err := t.c.ListSessions(ctx)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	for _, s := range ss {
		names[s.Session.ID] = s.Session.Name
	}
	rows := []sessionRow{}
	for _, s := range ss {
		if in.Workspace != "" && filepath.Clean(s.Session.Workspace) != filepath.Clean(in.Workspace) {
			continue
		}
		rows = append(rows, row(s, names))
	}
	return rows, nil
}

// row is a session's list row.
func row(s api.SessionInfo, names map[string]string) sessionRow {
	parent := s.Session.Parent
	if n := names[parent]; n != "" {
		parent = n
	}
	return sessionRow{ID: s.Session.ID, Name: s.Session.Name, Status: string(s.Status), Running: s.Running, Head: s.Head, Model: s.Model,
		Workspace: s.Session.Workspace, Parent: parent, ParentSeq: s.Session.ParentSeq, Created: s.Session.Created.UTC().Format(time.RFC3339),
		Steps: s.Steps, Cost: s.Cost, Drift: s.Drift, Conflicts: s.Conflicts, Watchers: s.Clients}
}

func (t *tools) newSession(ctx context.Context, in newIn) (any, error) {
	ws := in.Workspace
	if ws == "" {
		ws = t.o.Workspace
	}
	if err := t.allowedWorkspace(ctx, ws); err != nil {
		return nil, err
	}
	s, err := t.c.NewSession(ctx, api.NewSessionRequest{Name: in.Name, Workspace: ws, Model: in.Model})
	if err != nil {
		return nil, err
	}
	return brief(s), nil
}

// sessionBrief is a session as the branching tools return it.
type sessionBrief struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Branch    string `json:"branch"`
	Workspace string `json:"workspace"`
	Parent    string `json:"parent,omitempty"`
	ParentSeq uint64 `json:"parent_seq,omitempty"`
}

func brief(s *harness.Session) sessionBrief {
	return sessionBrief{ID: s.ID, Name: s.Name, Branch: s.Branch, Workspace: s.Workspace, Parent: s.Parent, ParentSeq: s.ParentSeq}
}

// Paging bounds of read_log.
const (
	defaultLogLimit = 60
	maxLogLimit     = 500
	maxFullData     = 4000
)

func (t *tools) readLog(ctx context.Context, in logIn) (any, error) {
	s, err := t.session(ctx, in.Session)
	if err != nil {
		return nil, err
	}
	st, err := t.c.State(ctx, s.Branch)
	if err != nil {
		return nil, err
	}
	from, to, err := logRange(in, st.Head)
	if err != nil {
		return nil, err
	}
	evs, err := t.c.Events(ctx, s.Branch, from, to)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "session %s (%s), events %d..%d of %d\n", s.Name, s.ID, from, to, st.Head)
	for _, ev := range evs {
		writeEvent(&b, ev, in.Full)
	}
	if from > 1 {
		fmt.Fprintf(&b, "(earlier events: read_log with to=%d)\n", from-1)
	}
	return b.String(), nil
}

// logRange resolves read_log's from, to and limit against the head.
func logRange(in logIn, head uint64) (uint64, uint64, error) {
	limit := in.Limit
	if limit <= 0 {
		limit = defaultLogLimit
	}
	limit = min(limit, maxLogLimit)
	if head == 0 {
		return 0, 0, errors.New("the session has no events")
	}
	to := in.To
	if to == 0 || to > head {
		to = head
	}
	from := in.From
	if from == 0 {
		from = 1
		if to > uint64(limit) {
			from = to - uint64(limit) + 1
		}
	}
	if from > to {
		return 0, 0, fmt.Errorf("from %d is after to %d (the head is %d)", from, to, head)
	}
	to = min(to, from+uint64(limit)-1)
	return from, to, nil
}

// writeEvent writes one event line (and its payload when full).
func writeEvent(b *strings.Builder, ev harness.Event, full bool) {
	fmt.Fprintf(b, "%d\t%s\t%s\t%s", ev.Seq, ev.Time.UTC().Format("15:04:05"), ev.Actor, ev.Type)
	if !full {
		fmt.Fprintf(b, "\t%s\n", strings.ReplaceAll(harness.Summary(ev), "\n", " "))
		return
	}
	data := string(ev.Data)
	if len(data) > maxFullData {
		data = data[:maxFullData] + fmt.Sprintf("…(%d more bytes)", len(ev.Data)-maxFullData)
	}
	fmt.Fprintf(b, "\t%s\n", data)
}

func (t *tools) fork(ctx context.Context, in forkIn) (any, error) {
	s, err := t.session(ctx, in.Session)
	if err != nil {
		return nil, err
	}
	f, err := t.c.Fork(ctx, api.ForkRequest{Session: s.ID, Seq: in.Seq, Name: in.Name})
	if err != nil {
		return nil, err
	}
	return brief(f), nil
}

func (t *tools) rewind(ctx context.Context, in rewindIn) (any, error) {
	s, err := t.session(ctx, in.Session)
	if err != nil {
		return nil, err
	}
	if in.Seq == 0 {
		return nil, errors.New("seq must be an event number from 1 up (read_log shows them)")
	}
	plan, err := t.c.RewindPreview(ctx, s.ID, in.Seq)
	if err != nil {
		return nil, err
	}
	summary := fmt.Sprintf("rewind %s to seq %d: %d events left behind, %d files restored", s.Name, in.Seq, plan.Events, len(plan.Files))
	if _, err := t.gate(ctx, s, "rewind_session", "ask", summary, map[string]any{"seq": in.Seq, "files": plan.Files}, in.WaitForApproval); err != nil {
		return nil, err
	}
	r, err := t.c.Rewind(ctx, s.ID, in.Seq)
	if err != nil {
		return nil, err
	}
	return struct {
		Session        sessionBrief `json:"session"`
		EventsLeft     int          `json:"events_left_behind"`
		FilesRestored  []string     `json:"files_restored,omitempty"`
		ContinuingFrom uint64       `json:"continuing_from_seq"`
	}{brief(r), plan.Events, plan.Files, in.Seq}, nil
}

func (t *tools) say(ctx context.Context, in sayIn) (any, error) {
	s, err := t.session(ctx, in.Session)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Text) == "" {
		return nil, errors.New("the text is empty")
	}
	ev, err := t.c.Say(ctx, s.ID, in.Text, "mcp")
	if err != nil {
		return nil, err
	}
	return fmt.Sprintf("appended to %s as seq %d", s.Name, ev.Seq), nil
}
