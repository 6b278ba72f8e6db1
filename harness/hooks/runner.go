package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"exo/harness"
	"exo/harness/executor"
)

// Runner runs the configured hooks for the executor (it implements executor.Hooks). Settings
// are read per workspace and read again when a file changes.
type Runner struct {
	h *harness.Harness
	// files lists the settings files of a workspace; default Files.
	files func(workspace string) []string
	// Trust, when set (before first use), decides whether a project's settings files may run
	// their hooks (the user's own settings always may); nil trusts every file.
	Trust Trust

	mu    sync.Mutex
	cache map[string]loaded // by workspace
}

// loaded is a workspace's hooks and the files' identity when read.
type loaded struct {
	key   string
	hooks []Configured
	err   error
}

var _ executor.Hooks = (*Runner)(nil)

// Trust is the user's record of trusted project files (harness/trust's Store).
type Trust interface {
	// Check returns nil when data, the contents of file rel of the project at dir, is trusted.
	Check(dir, rel string, data []byte) error
	// Stamp changes whenever the record changes.
	Stamp() string
}

// NewRunner returns a runner over a harness (where hook runs are recorded).
func NewRunner(h *harness.Harness) *Runner {
	return &Runner{h: h, files: Files, cache: map[string]loaded{}}
}

// hooksFor returns the hooks of an event in a workspace, reloading changed settings.
func (r *Runner) hooksFor(s *harness.Session, event string) []Configured {
	files := r.files(s.Workspace)
	project := projectOf(s)
	key := filesKey(files)
	if r.Trust != nil {
		key += r.Trust.Stamp() + ";" + project
	}
	r.mu.Lock()
	l, ok := r.cache[s.Workspace]
	r.mu.Unlock()
	if !ok || l.key != key {
		hs, refused, err := LoadChecked(s.Workspace, files, r.check(s.Workspace, project))
		l = loaded{key: key, hooks: hs, err: err}
		r.mu.Lock()
		r.cache[s.Workspace] = l
		r.mu.Unlock()
		if err != nil {
			r.record(s, harness.HookRun{Event: event, Command: "(settings)", Error: err.Error(), ExitCode: -1})
		}
		for _, why := range refused {
			r.record(s, harness.HookRun{Event: event, Command: "(untrusted settings)", Error: why, ExitCode: -1})
		}
	}
	var out []Configured
	for _, hk := range l.hooks {
		if hk.Event == event {
			out = append(out, hk)
		}
	}
	return out
}

// projectOf is the folder whose trust a session's workspace follows: the project a fork was
// made from, else the workspace.
func projectOf(s *harness.Session) string {
	if p := s.Settings["project"]; p != "" {
		return p
	}
	return s.Workspace
}

// check returns the trust check for a workspace's settings files: those inside the workspace
// are the project's and must be trusted; the others are the user's.
func (r *Runner) check(workspace, project string) func(string, []byte) error {
	if r.Trust == nil || workspace == "" {
		return nil
	}
	return func(path string, data []byte) error {
		rel, err := filepath.Rel(workspace, path)
		if err != nil || strings.HasPrefix(rel, "..") {
			return nil
		}
		return r.Trust.Check(project, rel, data)
	}
}

// filesKey identifies the settings files' contents by size and time.
func filesKey(files []string) string {
	var b strings.Builder
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			fmt.Fprintf(&b, "%s:%d:%d;", f, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return b.String()
}

// outcome is one hook run, parsed.
type outcome struct {
	run     harness.HookRun
	block   bool   // exit 2, decision block, or permissionDecision deny
	stop    bool   // continue false: the agent stops (reason is the stopReason)
	decide  string // PreToolUse: allow, deny, ask
	reason  string
	context string
	input   json.RawMessage
}

// point is one hook point: the event, what its matchers match (the tool's name; the source of
// SessionStart; the trigger of PreCompact; "" for events without matchers), and the call.
type point struct {
	event, match, tool, callID string
}

// runAll runs an event's matching hooks in order; input is built per hook so a rewrite by one
// is seen by the next.
func (r *Runner) runAll(ctx context.Context, s *harness.Session, pt point, input func() map[string]any, each func(o outcome) bool) {
	event, tool, callID := pt.event, pt.tool, pt.callID
	for _, hk := range r.hooksFor(s, event) {
		if pt.match != "" && !hk.Matches(pt.match) {
			continue
		}
		in := input()
		in["session_id"], in["cwd"], in["hook_event_name"], in["transcript_path"], in["permission_mode"] = s.ID, s.Workspace, event, "", "default"
		raw, _ := json.Marshal(in)
		raw = []byte(r.h.Redact(string(raw))) // a hook is a program on the host: it gets no secret value
		res := execHook(ctx, hk.Command, workDir(s.Workspace), []string{
			"EXO_PROJECT_DIR=" + s.Workspace, "CLAUDE_PROJECT_DIR=" + s.Workspace, "EXO_SESSION_ID=" + s.ID, "EXO_HOOK_EVENT=" + event,
		}, raw, hk.timeout())
		o := parse(event, res)
		o.run.Event, o.run.Matcher, o.run.Command, o.run.Source, o.run.Tool, o.run.CallID = event, hk.Matcher, hk.Command, hk.Source, tool, callID
		if res.timedOut {
			o.run.Error = fmt.Sprintf("killed after %s (timeout)", hk.timeout())
		}
		r.record(s, o.run)
		if !each(o) {
			return
		}
	}
}

// workDir is where hooks run: the workspace, else the current directory.
func workDir(ws string) string {
	if ws != "" {
		if fi, err := os.Stat(ws); err == nil && fi.IsDir() {
			return ws
		}
	}
	d, _ := os.Getwd()
	return d
}

// record appends a hook.run event (output and reason redacted).
func (r *Runner) record(s *harness.Session, run harness.HookRun) {
	run.Output, run.Reason, run.Error = r.h.Redact(cut(run.Output, 2000)), r.h.Redact(cut(run.Reason, 2000)), r.h.Redact(run.Error)
	_, _ = r.h.AppendOn(s.ID, s.Branch, harness.MustRecord(harness.TypeHookRun, harness.ActorHarness, run))
}

// PreToolUse runs the matching hooks; the strictest decision wins (deny over ask over allow),
// and each updatedInput replaces the arguments for the hooks after it and for the call.
func (r *Runner) PreToolUse(ctx context.Context, c executor.HookToolCall) executor.PreToolVerdict {
	var v executor.PreToolVerdict
	args := c.Args
	abs := func() map[string]any { return toolInput(c.Session.Workspace, args) }
	r.runAll(ctx, c.Session, point{PreToolUse, c.Tool, c.Tool, c.CallID}, func() map[string]any {
		return map[string]any{"tool_name": c.Tool, "tool_input": abs(), "tool_use_id": c.CallID}
	}, func(o outcome) bool {
		if o.stop {
			v.Stop = stopOf(PreToolUse, o)
			return false
		}
		if len(o.input) > 0 {
			args = fromToolInput(c.Session.Workspace, args, o.input)
			v.Args = args
		}
		if rank(o.decide) > rank(v.Decision) {
			v.Decision, v.Reason = o.decide, o.reason
		}
		return v.Decision != "deny"
	})
	return v
}

// rank orders PreToolUse decisions by strictness.
func rank(d string) int {
	return map[string]int{"allow": 1, "ask": 2, "deny": 3}[d]
}

// PostToolUse runs the matching hooks after a call; their block reasons and additional
// context go back to the model; a continue:false stops the turn after the call.
func (r *Runner) PostToolUse(ctx context.Context, c executor.HookToolCall, output string, isError bool) (string, executor.HookStop) {
	var notes []string
	var stop executor.HookStop
	r.runAll(ctx, c.Session, point{PostToolUse, c.Tool, c.Tool, c.CallID}, func() map[string]any {
		return map[string]any{"tool_name": c.Tool, "tool_input": toolInput(c.Session.Workspace, c.Args), "tool_use_id": c.CallID,
			"tool_response": map[string]any{"output": output, "is_error": isError}}
	}, func(o outcome) bool {
		if o.stop {
			stop = stopOf(PostToolUse, o)
			return false
		}
		notes = appendNonEmpty(notes, o.reason, o.context)
		return true
	})
	return strings.Join(notes, "\n"), stop
}

// stopOf is a hook's continue:false.
func stopOf(event string, o outcome) executor.HookStop {
	return executor.HookStop{Stop: true, Reason: o.reason, Event: event}
}

// UserPromptSubmit runs the hooks before a prompt is recorded.
func (r *Runner) UserPromptSubmit(ctx context.Context, s *harness.Session, prompt string) (bool, string, string) {
	var block bool
	var reason string
	var extra []string
	r.runAll(ctx, s, point{event: UserPromptSubmit}, func() map[string]any { return map[string]any{"prompt": prompt} }, func(o outcome) bool {
		if o.block || o.stop {
			block, reason = true, o.reason
			return false
		}
		extra = appendNonEmpty(extra, o.context)
		return true
	})
	return block, reason, strings.Join(extra, "\n")
}

// Stop runs the hooks when the model is done; one that blocks makes the turn go on, unless a
// hook said continue:false (the agent stops, which wins over any block).
func (r *Runner) Stop(ctx context.Context, s *harness.Session, active bool) (bool, string) {
	var block bool
	var reason string
	r.runAll(ctx, s, point{event: Stop}, func() map[string]any { return map[string]any{"stop_hook_active": active} }, func(o outcome) bool {
		if o.stop {
			block, reason = false, ""
			return false
		}
		if o.block {
			block, reason = true, o.reason
			return false
		}
		return true
	})
	return block, reason
}

// SessionStart runs the hooks whose matcher matches source (startup, resume, clear, compact)
// before a session's first turn here; their context (JSON additionalContext or plain stdout)
// joins the system prompt; a continue:false stops the turn.
func (r *Runner) SessionStart(ctx context.Context, s *harness.Session, source string) (string, executor.HookStop) {
	var extra []string
	var stop executor.HookStop
	r.runAll(ctx, s, point{event: SessionStart, match: source}, func() map[string]any { return map[string]any{"source": source} }, func(o outcome) bool {
		if o.stop {
			stop = stopOf(SessionStart, o)
			return false
		}
		extra = appendNonEmpty(extra, o.context)
		return true
	})
	return strings.Join(extra, "\n"), stop
}

// PreCompact runs the hooks whose matcher matches trigger (manual, auto) before the history is
// summarised; a continue:false leaves the history as it is and stops the turn.
func (r *Runner) PreCompact(ctx context.Context, s *harness.Session, trigger string) executor.HookStop {
	var stop executor.HookStop
	r.runAll(ctx, s, point{event: PreCompact, match: trigger}, func() map[string]any {
		return map[string]any{"trigger": trigger, "custom_instructions": ""}
	}, func(o outcome) bool {
		if o.stop {
			stop = stopOf(PreCompact, o)
			return false
		}
		return true
	})
	return stop
}

// toolInput is the arguments as a hook sees them: exo's, plus file_path (absolute) beside a
// workspace-relative path, as Claude Code's file tools have.
func toolInput(ws string, args json.RawMessage) map[string]any {
	m := map[string]any{}
	_ = json.Unmarshal(args, &m)
	if p, ok := m["path"].(string); ok && ws != "" {
		if _, has := m["file_path"]; !has {
			m["file_path"] = filepath.Join(ws, p)
		}
	}
	return m
}

// fromToolInput turns a hook's updatedInput back into exo's arguments: a changed file_path
// inside the workspace becomes path; the file_path exo added is dropped.
func fromToolInput(ws string, orig, updated json.RawMessage) json.RawMessage {
	m := map[string]any{}
	if json.Unmarshal(updated, &m) != nil {
		return orig
	}
	before := toolInput(ws, orig)
	if fp, ok := m["file_path"].(string); ok {
		if _, had := before["path"]; had {
			if fp != before["file_path"] {
				if rel, err := filepath.Rel(ws, fp); err == nil && !strings.HasPrefix(rel, "..") {
					m["path"] = rel
				} else {
					m["path"] = fp // outside the workspace: the tool refuses it
				}
			}
			delete(m, "file_path")
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return orig
	}
	return b
}

// appendNonEmpty appends the non-empty strings.
func appendNonEmpty(list []string, s ...string) []string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			list = append(list, strings.TrimSpace(x))
		}
	}
	return list
}

// cut bounds s to n bytes.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
