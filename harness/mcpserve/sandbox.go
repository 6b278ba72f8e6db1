package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"exo/harness/api"
)

// Bounds of exec.
const (
	defaultExecTimeout = 120
	maxExecTimeout     = 3600
	// keepOutput is how much of a command's output exec returns (head and tail).
	keepOutput = 32 << 10
)

type execIn struct {
	Session        string `json:"session" jsonschema:"session whose sandbox runs the command: name, id or unique id prefix"`
	Command        string `json:"command" jsonschema:"a shell command line, run in the session's persistent shell in its workspace (state such as cd and exported variables persists between calls)"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" jsonschema:"kill the command after this many seconds, 1-3600 (default 120)"`
	// WaitForApproval waits for the user's answer when no app shows the session.
	WaitForApproval bool `json:"wait_for_approval,omitempty" jsonschema:"when the session's rules ask before bash and no exo app shows the session, wait for the user to open it and answer instead of being refused"`
}

type driftIn struct {
	Session string `json:"session" jsonschema:"session name, id or unique id prefix"`
	With    string `json:"with,omitempty" jsonschema:"a sibling session: also return the diffs of the files both sessions changed"`
}

// execOut is a finished command.
type execOut struct {
	ExitCode   int    `json:"exit_code"`
	Killed     string `json:"killed,omitempty"`
	DurationMs int64  `json:"duration_ms"`
	Output     string `json:"output"`
	// Artifact holds the whole output when it was too long to return.
	Artifact string `json:"artifact,omitempty"`
}

// addSandbox registers exec and drift.
func (t *tools) addSandbox(srv *sdk.Server) {
	add(t, srv, &sdk.Tool{Name: "exec", Title: "Run a command in a session's sandbox",
		Description: "Run a shell command in a session's sandbox: its workspace, its persistent shell, its policy (writes confined to the " +
			"workspace, network as the session allows). Recorded in the session's log so its agent sees it; the workspace is snapshotted " +
			"afterwards so rewind can undo it. It answers to the session's rules for bash like the agent's own commands (PreToolUse hooks; an " +
			"approval policy of ask waits for the user in the exo app, and is refused when no app shows the session unless wait_for_approval). " +
			"Returns exit code and output (long output is cut to its head and tail, the whole kept as an artifact).",
		Annotations: &sdk.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(true)}}, t.exec)
	add(t, srv, &sdk.Tool{Name: "drift", Title: "Drift and conflicts of a session",
		Description: "Report how far a session strayed from its scope (drift 0-1 from files changed outside the scope, past the file budget, " +
			"or on boundary paths) and which files it and its siblings both changed (conflicts). With 'with', also the diffs of those shared files.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, t.drift)
}

func (t *tools) exec(ctx context.Context, in execIn) (any, error) {
	s, err := t.session(ctx, in.Session)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Command) == "" {
		return nil, errors.New("the command is empty")
	}
	args, err := t.gate(ctx, s, "bash", "", in.Command, map[string]string{"command": in.Command}, in.WaitForApproval)
	if err != nil {
		return nil, err
	}
	command := in.Command
	var rewritten struct{ Command string }
	if json.Unmarshal(args, &rewritten) == nil && strings.TrimSpace(rewritten.Command) != "" {
		command = rewritten.Command // a PreToolUse hook rewrote it
	}
	secs := in.TimeoutSeconds
	if secs <= 0 {
		secs = defaultExecTimeout
	}
	out := &headTail{max: keepOutput}
	res, err := t.c.Exec(ctx, api.ExecRequest{Session: s.ID, Command: command, Timeout: time.Duration(min(secs, maxExecTimeout)) * time.Second}, out)
	if err != nil {
		return nil, err
	}
	// The sandbox's shell is a terminal: its line ends are \r\n.
	text := strings.ReplaceAll(out.String(), "\r\n", "\n")
	r := execOut{ExitCode: res.ExitCode, DurationMs: res.DurationMs, Output: text, Artifact: res.Artifact}
	if res.Killed {
		r.Killed = res.KillReason
	}
	return r, nil
}

func (t *tools) drift(ctx context.Context, in driftIn) (any, error) {
	s, err := t.session(ctx, in.Session)
	if err != nil {
		return nil, err
	}
	d, err := t.c.Drift(ctx, s.ID)
	if err != nil {
		return nil, err
	}
	out := struct {
		api.DriftReport
		Diff string `json:"diff,omitempty"`
	}{DriftReport: d}
	if in.With != "" {
		w, err := t.session(ctx, in.With)
		if err != nil {
			return nil, fmt.Errorf("with: %w", err)
		}
		if out.Diff, err = t.c.ConflictDiff(ctx, s.ID, w.ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// headTail keeps the first and last max/2 bytes written to it.
type headTail struct {
	max   int
	mu    sync.Mutex
	head  []byte
	tail  []byte
	total int
}

// Write keeps the head, then a rolling tail.
func (w *headTail) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n0 := len(p)
	w.total += n0
	half := w.max / 2
	if room := half - len(w.head); room > 0 {
		n := min(room, len(p))
		w.head = append(w.head, p[:n]...)
		p = p[n:]
	}
	w.tail = append(w.tail, p...)
	if len(w.tail) > half {
		w.tail = append(w.tail[:0:0], w.tail[len(w.tail)-half:]...)
	}
	return n0, nil
}

// String is the kept output, with a mark where bytes were left out.
func (w *headTail) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var b bytes.Buffer
	b.Write(w.head)
	if cut := w.total - len(w.head) - len(w.tail); cut > 0 {
		fmt.Fprintf(&b, "\n…(%d bytes left out)…\n", cut)
	}
	b.Write(w.tail)
	return b.String()
}
