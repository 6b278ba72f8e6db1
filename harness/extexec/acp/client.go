package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/provider"
	"exo/sandbox"
)

// answerWait bounds how long a permission request waits for the answer that made the call to be
// recorded.
const answerWait = 10 * time.Second

// client answers the agent's requests (permissions, files, terminals) and records its session
// updates: the ACP client side, as the SDK calls it.
type client struct{ pr *proc }

// spent adds exo's time answering the agent to the turn's overhead.
func (c *client) spent(start time.Time) { c.pr.ss.Log.AddOverhead(time.Since(start)) }

// turnContext is ctx, also cancelled when the running turn is (the user interrupted it).
func (pr *proc) turnContext(ctx context.Context) (context.Context, context.CancelFunc) {
	pr.mu.Lock()
	tc := pr.turnCtx
	pr.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	if tc != nil {
		stop := context.AfterFunc(tc, cancel)
		return ctx, func() { stop(); cancel() }
	}
	return ctx, cancel
}

// RequestPermission answers session/request_permission with exo's decision as one of the
// options: exo's checks (workspace, scope, sealed secrets) and approval policy for the tool's
// kind; cancelled when the user interrupts the turn.
func (c *client) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	defer c.spent(time.Now())
	pr := c.pr
	pick := func(kinds ...sdk.PermissionOptionKind) sdk.RequestPermissionResponse {
		for _, k := range kinds {
			for _, o := range p.Options {
				if o.Kind == k {
					return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(o.OptionId)}
				}
			}
		}
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}
	}
	tc := pr.tools.merge(fromUpdate(p.ToolCall))
	if tc.exos() {
		return pick(sdk.PermissionOptionKindAllowOnce, sdk.PermissionOptionKindAllowAlways), nil // exo's policy applies when its tool runs
	}
	ctx, cancel := pr.turnContext(ctx)
	defer cancel()
	if tc = pr.resolve(tc); tc.exos() {
		return pick(sdk.PermissionOptionKindAllowOnce, sdk.PermissionOptionKindAllowAlways), nil
	}
	nc := pr.nativeCall(tc)
	ok, why, err := pr.a.x.StartNative(ctx, pr.ss.ID, nc)
	pr.tools.mark(tc.ID, false)
	pr.ss.Log.CountTool()
	if err != nil {
		why = "exo could not check this tool use: " + err.Error()
		if ctx.Err() != nil {
			why = "cancelled: the user interrupted the turn"
		}
	}
	if err != nil || !ok {
		pr.tools.mark(tc.ID, true)
		_ = pr.a.x.FinishNative(pr.ss.ID, harness.ToolCompleted{CallID: nc.Call.ID, Tool: nc.Call.Name, Output: why, IsError: true}, false)
		if ctx.Err() != nil {
			return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
		}
		return pick(sdk.PermissionOptionKindRejectOnce, sdk.PermissionOptionKindRejectAlways), nil
	}
	return pick(sdk.PermissionOptionKindAllowOnce, sdk.PermissionOptionKindAllowAlways), nil
}

// SessionUpdate records one of the agent's session updates into the running turn.
func (c *client) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.pr.update(n.Update)
	return nil
}

// callSeq numbers the calls exo records for the agent's file and terminal requests.
var callSeq atomic.Int64

// clientCall records a file or terminal request as a tool call and decides it by exo's checks
// and approval policy; a refusal is the error the agent gets.
func (pr *proc) clientCall(ctx context.Context, name, policy string, args any, n executor.NativeCall) (string, error) {
	raw, _ := json.Marshal(args)
	n.Call = provider.ToolCall{ID: fmt.Sprintf("acp_%s_%d", strings.ReplaceAll(name, "/", "_"), callSeq.Add(1)), Name: name, Arguments: raw}
	n.Policy = policy
	ctx, cancel := pr.turnContext(ctx)
	defer cancel()
	ok, why, err := pr.a.x.StartNative(ctx, pr.ss.ID, n)
	pr.ss.Log.CountTool()
	if err != nil {
		why = err.Error()
	}
	if err != nil || !ok {
		_ = pr.a.x.FinishNative(pr.ss.ID, harness.ToolCompleted{CallID: n.Call.ID, Tool: name, Output: why, IsError: true}, false)
		return "", &sdk.RequestError{Code: codeInternal, Message: why}
	}
	return n.Call.ID, nil
}

// inWorkspace resolves a path the agent gave (absolute, as ACP requires) inside the workspace,
// refusing symlinks that lead out of it.
func (pr *proc) inWorkspace(path string) (string, error) {
	rel := path
	if filepath.IsAbs(path) {
		r, err := filepath.Rel(pr.s.Workspace, path)
		if err != nil || r == ".." || strings.HasPrefix(r, "../") {
			return "", fmt.Errorf("%s is outside the workspace %s", path, pr.s.Workspace)
		}
		rel = r
	}
	return sandbox.ResolveInWorkspace(pr.s.Workspace, rel)
}

// ReadTextFile serves fs/read_text_file from the workspace (redacted; exo's sealed secrets and
// its home are refused).
func (c *client) ReadTextFile(ctx context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	defer c.spent(time.Now())
	pr := c.pr
	id, err := pr.clientCall(ctx, "fs/read_text_file", "read_file", p, executor.NativeCall{Reads: []string{p.Path}})
	if err != nil {
		return sdk.ReadTextFileResponse{}, err
	}
	line, limit := 0, 0
	if p.Line != nil {
		line = *p.Line
	}
	if p.Limit != nil {
		limit = *p.Limit
	}
	text, err := pr.read(p.Path, line, limit)
	done := harness.ToolCompleted{CallID: id, Tool: "fs/read_text_file", Output: text}
	if err != nil {
		done.Output, done.IsError = err.Error(), true
	}
	_ = pr.a.x.FinishNative(pr.ss.ID, done, false)
	if err != nil {
		return sdk.ReadTextFileResponse{}, fileErr(p.Path, err)
	}
	return sdk.ReadTextFileResponse{Content: text}, nil
}

// JSON-RPC error codes of ACP: a missing resource (a file), and an internal error.
const (
	codeNotFound = -32002
	codeInternal = -32603
)

// fileErr is a file request's failure as the agent gets it: a missing file as ACP's "Resource
// not found" (agents take it for ENOENT: the Gemini CLI's write_file then writes a new file),
// anything else with its reason as the message (not a bare "Internal error").
func fileErr(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return &sdk.RequestError{Code: codeNotFound, Message: "Resource not found: " + path}
	}
	return &sdk.RequestError{Code: codeInternal, Message: err.Error()}
}

// maxTextFile bounds a file fs/read_text_file reads.
const maxTextFile = 16 << 20

// read reads a workspace file, from line (1-based) for limit lines when given. The path is
// opened beneath the workspace without following any link (one swapped in after it was
// resolved makes the read fail), only a regular file of at most 16 MiB.
func (pr *proc) read(path string, line, limit int) (string, error) {
	rel, err := pr.relInWorkspace(path)
	if err != nil {
		return "", err
	}
	b, err := sandbox.ReadBeneath(pr.s.Workspace, rel, maxTextFile)
	if err != nil {
		return "", err
	}
	text := pr.a.h.Redact(string(b))
	if line <= 1 && limit <= 0 {
		return text, nil
	}
	lines := strings.SplitAfter(text, "\n")
	from := min(max(line-1, 0), len(lines))
	to := len(lines)
	if limit > 0 {
		to = min(from+limit, len(lines))
	}
	return strings.Join(lines[from:to], ""), nil
}

// WriteTextFile serves fs/write_text_file into the workspace, within the scope, and snapshots
// the workspace so rewind restores the file.
func (c *client) WriteTextFile(ctx context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	defer c.spent(time.Now())
	pr := c.pr
	id, err := pr.clientCall(ctx, "fs/write_text_file", "write_file", map[string]any{"path": p.Path, "bytes": len(p.Content)},
		executor.NativeCall{Writes: []string{p.Path}})
	if err != nil {
		return sdk.WriteTextFileResponse{}, err
	}
	err = pr.write(p.Path, p.Content)
	done := harness.ToolCompleted{CallID: id, Tool: "fs/write_text_file", Output: fmt.Sprintf("wrote %d bytes to %s", len(p.Content), p.Path)}
	if err != nil {
		done.Output, done.IsError = err.Error(), true
	}
	if ferr := pr.a.x.FinishNative(pr.ss.ID, done, err == nil); ferr != nil && err == nil {
		err = ferr
	}
	if err != nil {
		return sdk.WriteTextFileResponse{}, fileErr(p.Path, err)
	}
	return sdk.WriteTextFileResponse{}, nil
}

// write writes a workspace file, keeping an existing file's permissions: beneath the workspace
// without following any link (a link planted at the file is replaced, not written through).
func (pr *proc) write(path, content string) error {
	rel, err := pr.relInWorkspace(path)
	if err != nil {
		return err
	}
	d, err := sandbox.OpenDir(pr.s.Workspace)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.WriteFile(rel, []byte(content), 0o644)
}

// relInWorkspace resolves path in the workspace (links inside it followed, one leading out
// refused) and returns it relative to the workspace.
func (pr *proc) relInWorkspace(path string) (string, error) {
	abs, err := pr.inWorkspace(path)
	if err != nil {
		return "", err
	}
	ws, err := filepath.EvalSymlinks(pr.s.Workspace)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(ws, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("%s is outside the workspace %s", path, pr.s.Workspace)
	}
	return rel, nil
}
