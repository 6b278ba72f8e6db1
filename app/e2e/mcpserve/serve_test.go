package mcpserve

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"exo/harness/provider/providertest"
)

// mcpClient is the MCP SDK's own client connected to `exo mcp serve` (the real binary) over
// stdio; every text it receives is kept so the test can search it for the secret.
type mcpClient struct {
	t        *testing.T
	sess     *sdk.ClientSession
	received strings.Builder
}

// serveMCP starts `exo mcp serve [args]` in dir with EXO_HOME=home and connects the SDK's
// client.
func serveMCP(t *testing.T, home, dir string, args ...string) *mcpClient {
	t.Helper()
	return serveMCPEnv(t, home, dir, nil, args...)
}

// serveMCPEnv is serveMCP with further environment variables.
func serveMCPEnv(t *testing.T, home, dir string, env []string, args ...string) *mcpClient {
	t.Helper()
	stopDaemonAtEnd(t, home)
	cmd := exec.Command(exoBin, append([]string{"mcp", "serve"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "EXO_HOME="+home), env...)
	cmd.Stderr = os.Stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "exo-e2e", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sess, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to exo mcp serve: %v", err)
	}
	t.Cleanup(func() { sess.Close() })
	return &mcpClient{t: t, sess: sess}
}

// call calls a tool and returns its text; isErr says whether the tool reported an error.
func (c *mcpClient) call(name string, args map[string]any) (string, bool) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := c.sess.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	c.received.WriteString(b.String())
	return b.String(), res.IsError
}

// must calls a tool that must succeed.
func (c *mcpClient) must(name string, args map[string]any) string {
	c.t.Helper()
	out, isErr := c.call(name, args)
	if isErr {
		c.t.Fatalf("%s(%v) failed: %s", name, args, out)
	}
	return out
}

// mustJSON calls a tool and decodes its JSON result.
func (c *mcpClient) mustJSON(name string, args map[string]any, v any) {
	c.t.Helper()
	out := c.must(name, args)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		c.t.Fatalf("%s: %v in %s", name, err, out)
	}
}

// turnResult is run_turn's answer as the test reads it.
type turnResult struct {
	Session   string `json:"session"`
	SessionID string `json:"session_id"`
	TurnID    string `json:"turn_id"`
	State     string `json:"state"`
	Response  string `json:"response"`
	Steps     int    `json:"steps"`
	Approvals []struct {
		Tool, Decision, By string
	} `json:"approvals"`
	Next string `json:"next"`
}

// setupMCPWorld registers a scripted OpenAI-compatible model authenticated by a sealed secret,
// and makes a workspace whose constitution asks before bash (exo init + compile) and whose
// leak.txt holds the secret's value.
func setupMCPWorld(t *testing.T, replies ...providertest.ChatReply) (home, ws string, srv *providertest.ScriptedChat) {
	srv = providertest.NewScriptedChat(replies...)
	t.Cleanup(srv.Close)
	home, ws = t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "leak.txt"), []byte("key="+secretValue+"\n"), 0o644)
	if _, errs, code := exoEnv(t, home, ws, []string{"TEST_KEY=" + secretValue}, "secret", "set", "openai", "--env", "TEST_KEY"); code != 0 {
		t.Fatal(errs)
	}
	if _, errs, code := exoEnv(t, home, ws, nil, "model", "register", "m", "--provider", "openai-compatible", "--model-id", "gpt-4.1", "--base-url", srv.BaseURL(), "--secret", "openai"); code != 0 {
		t.Fatal(errs)
	}
	exoEnv(t, home, ws, nil, "init")
	if _, errs, code := exoEnv(t, home, ws, nil, "compile"); code != 0 {
		t.Fatal(errs)
	}
	return home, ws, srv
}

// TestMCPServeDrivenBySDKClient drives `exo mcp serve` with the MCP SDK's client: tools listed
// with schemas, a session created, a turn whose bash call needs an approval nobody can give
// (refused, never auto-allowed), a turn cut at its step limit, exec in the sandbox, the log,
// fork, rewind, say and drift — and the sealed secret's value never in anything received.
func TestMCPServeDrivenBySDKClient(t *testing.T) {
	t.Parallel()
	home, ws, srv := setupMCPWorld(t,
		providertest.ChatReply{Text: "Reading it.", ToolCalls: []providertest.ChatToolCall{{ID: "c1", Name: "bash", Args: `{"command":"cat leak.txt > copied.txt"}`}}},
		providertest.ChatReply{Text: "I was not allowed to run bash. I remember the key is " + secretValue + " though."},
		providertest.ChatReply{Text: "Looking.", ToolCalls: []providertest.ChatToolCall{{ID: "c2", Name: "read_file", Args: `{"path":"leak.txt"}`}}},
	)
	c := serveMCP(t, home, ws)

	tools, err := c.sess.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"list_sessions": true, "new_session": true, "read_log": true, "fork_session": true, "rewind_session": true,
		"say": true, "run_turn": true, "wait_turn": true, "cancel_turn": true, "exec": true, "drift": true}
	for _, tl := range tools.Tools {
		if !want[tl.Name] {
			continue
		}
		delete(want, tl.Name)
		schema, _ := json.Marshal(tl.InputSchema)
		if len(tl.Description) < 60 || !strings.Contains(string(schema), `"description"`) {
			t.Errorf("%s: description or schema too thin: %q %s", tl.Name, tl.Description, schema)
		}
		if tl.Name == "run_turn" && !strings.Contains(string(schema), `"required":["prompt"]`) {
			t.Errorf("run_turn's schema does not require the prompt: %s", schema)
		}
	}
	if len(want) != 0 {
		t.Fatalf("tools missing: %v", want)
	}

	var created struct{ ID, Name, Workspace string }
	c.mustJSON("new_session", map[string]any{"name": "lent"}, &created)
	if created.Name != "lent" || created.Workspace != ws {
		t.Fatalf("new_session: %+v (workspace should default to serve's directory %s)", created, ws)
	}

	// No app watches the session: the approval bash needs is refused, not given.
	var tr turnResult
	c.mustJSON("run_turn", map[string]any{"session": "lent", "prompt": "copy leak.txt"}, &tr)
	if tr.State != "done" || len(tr.Approvals) != 1 || tr.Approvals[0].Tool != "bash" || tr.Approvals[0].Decision != "deny" || tr.Approvals[0].By != "harness" {
		t.Fatalf("run_turn: %+v", tr)
	}
	if _, err := os.Stat(filepath.Join(ws, "copied.txt")); err == nil {
		t.Fatal("the bash call ran without the user's approval")
	}
	if !strings.Contains(tr.Response, "‹secret:openai›") || !strings.Contains(tr.Next, "exo attach lent") {
		t.Fatalf("response not redacted or no hint about approvals: %+v", tr)
	}

	// The step limit stops a turn that would go on.
	c.mustJSON("run_turn", map[string]any{"session": "lent", "prompt": "look again", "max_steps": 1}, &tr)
	if tr.State != "step_limit" || tr.Steps != 1 || !strings.Contains(tr.Next, "run_turn again") {
		t.Fatalf("step limit: %+v", tr)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("%d model requests, want 3", n)
	}

	// exec answers to the session's rules for bash like the agent's own commands: nobody can
	// answer, so it is refused; waiting for the user, it runs once the user approves.
	cmd := "cat leak.txt; echo made > made.txt; exit 3"
	if out, isErr := c.call("exec", map[string]any{"session": "lent", "command": cmd}); !isErr ||
		!strings.Contains(out, "nobody can answer") || !strings.Contains(out, "exo attach lent") || !strings.Contains(out, "wait_for_approval") {
		t.Fatalf("exec without an approval: %v %s", isErr, out)
	}
	if _, err := os.Stat(filepath.Join(ws, "made.txt")); err == nil {
		t.Fatal("exec ran although the session's policy asks before bash and nobody answered")
	}
	var ex struct {
		ExitCode int    `json:"exit_code"`
		Output   string `json:"output"`
	}
	approved := approveSoon(t, home, "lent", "once")
	c.mustJSON("exec", map[string]any{"session": "lent", "command": cmd, "wait_for_approval": true}, &ex)
	if tool := <-approved; tool != "bash" || ex.ExitCode != 3 || !strings.Contains(ex.Output, "key=‹secret:openai›") {
		t.Fatalf("exec: %+v (approval of %q)", ex, tool)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "made.txt")); string(b) != "made\n" {
		t.Fatal("exec did not run in the session's workspace")
	}

	log := c.must("read_log", map[string]any{"session": "lent", "limit": 500})
	for _, w := range []string{"invocation.received", "approval.requested", "approval.resolved", "tool.completed", "copy leak.txt"} {
		if !strings.Contains(log, w) {
			t.Errorf("the log lacks %s:\n%s", w, log)
		}
	}
	full := c.must("read_log", map[string]any{"session": "lent", "full": true, "from": 1, "to": 3})
	if !strings.Contains(full, "events 1..3 of") || !strings.Contains(full, `"text":"copy leak.txt"`) {
		t.Fatalf("full log:\n%s", full)
	}

	var fork struct{ ID, Name, Parent string }
	c.mustJSON("fork_session", map[string]any{"session": "lent", "seq": 3, "name": "alt"}, &fork)
	if fork.Name != "alt" || fork.Parent != created.ID {
		t.Fatalf("fork: %+v", fork)
	}
	var rows []struct {
		Name, Parent string
		ParentSeq    uint64 `json:"parent_seq"`
	}
	c.mustJSON("list_sessions", map[string]any{"workspace": ws}, &rows)
	if len(rows) != 1 {
		t.Fatalf("list_sessions by workspace (the fork works in its own copy): %+v", rows)
	}
	c.mustJSON("list_sessions", nil, &rows)
	if len(rows) != 2 || rows[1].Name != "alt" || rows[1].Parent != "lent" || rows[1].ParentSeq != 3 {
		t.Fatalf("list_sessions: %+v", rows)
	}
	altApproved := approveSoon(t, home, "alt", "once")
	c.must("exec", map[string]any{"session": "alt", "command": "echo other > made.txt", "wait_for_approval": true})
	if tool := <-altApproved; tool != "bash" {
		t.Fatalf("the fork's exec was approved as %q", tool)
	}
	var drift struct {
		Conflicts []struct{ Path string } `json:"conflicts"`
		Diff      string                  `json:"diff"`
	}
	c.mustJSON("drift", map[string]any{"session": "lent", "with": "alt"}, &drift)
	if len(drift.Conflicts) == 0 || drift.Conflicts[0].Path != "made.txt" || !strings.Contains(drift.Diff, "other") {
		t.Fatalf("drift: %+v", drift)
	}

	var rw struct {
		EventsLeft    int      `json:"events_left_behind"`
		FilesRestored []string `json:"files_restored"`
	}
	// Rewinding undoes the user's files: it asks, refused when nobody can answer.
	if out, isErr := c.call("rewind_session", map[string]any{"session": "lent", "seq": 3}); !isErr || !strings.Contains(out, "nobody can answer") {
		t.Fatalf("rewind without an approval: %v %s", isErr, out)
	}
	if _, err := os.Stat(filepath.Join(ws, "made.txt")); err != nil {
		t.Fatal("a refused rewind restored the workspace")
	}
	approved = approveSoon(t, home, "lent", "once")
	c.mustJSON("rewind_session", map[string]any{"session": "lent", "seq": 3, "wait_for_approval": true}, &rw)
	if tool := <-approved; rw.EventsLeft == 0 || tool != "rewind_session" {
		t.Fatalf("rewind: %+v (approval of %q)", rw, tool)
	}
	if _, err := os.Stat(filepath.Join(ws, "made.txt")); err == nil {
		t.Fatal("rewind did not restore the workspace")
	}
	if out := c.must("say", map[string]any{"session": "lent", "text": "a note"}); !strings.HasPrefix(out, "appended to lent as seq ") {
		t.Fatalf("say: %s", out)
	}

	// Errors are tool errors a model can act on.
	if out, isErr := c.call("read_log", map[string]any{"session": "nobody"}); !isErr || !strings.Contains(out, "list_sessions") {
		t.Fatalf("unknown session: %v %s", isErr, out)
	}
	if out, isErr := c.call("run_turn", map[string]any{"session": "lent"}); !isErr || !strings.Contains(out, "prompt") {
		t.Fatalf("missing prompt: %v %s", isErr, out)
	}
	if strings.Contains(c.received.String(), secretValue) {
		t.Fatal("the sealed secret's value reached the MCP client")
	}
}

// TestMCPServeApprovalAnsweredInTheApp runs a turn through `exo mcp serve` while the exo app
// shows the session: the bash call's approval appears in the app, the turn waits, and the
// user's answer there lets it run.
func TestMCPServeApprovalAnsweredInTheApp(t *testing.T) {
	t.Parallel()
	home, ws, _ := setupMCPWorld(t,
		providertest.ChatReply{Text: "Writing.", ToolCalls: []providertest.ChatToolCall{{ID: "c1", Name: "bash", Args: `{"command":"echo approved > out.txt"}`}}},
		providertest.ChatReply{Text: "Wrote out.txt."},
	)
	mustRunIn(t, home, ws, "new", "--name", "watched")
	scr := startTmux(t, 140, 40, "cd "+ws+" && EXO_HOME="+home+" "+exoBin+" attach watched --theme dark")
	scr.waitFor("the app watching", "◉1")
	c := serveMCP(t, home, ws)
	done := make(chan turnResult, 1)
	go func() {
		var tr turnResult
		out, _ := c.call("run_turn", map[string]any{"session": "watched", "prompt": "write out.txt"})
		json.Unmarshal([]byte(out), &tr)
		done <- tr
	}()
	scr.waitFor("the approval in the app, taking keys", "y approve once") // keys wait a moment after it opens
	select {
	case tr := <-done:
		t.Fatalf("run_turn returned before the user answered: %+v", tr)
	default:
	}
	scr.keys("y")
	tr := <-done
	if tr.State != "done" || tr.Response != "Wrote out.txt." || len(tr.Approvals) != 1 || tr.Approvals[0].Decision != "once" || tr.Approvals[0].By != "user" {
		t.Fatalf("run_turn: %+v", tr)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "out.txt")); string(b) != "approved\n" {
		t.Fatal("the approved command did not run")
	}
	scr.keys("C-q")
}

// TestMCPServeWithTypeScriptSDKClient drives `exo mcp serve` with a client no one here wrote:
// the official TypeScript SDK's (installed by .ci/run, pinned), from testdata/ts_client.cjs.
func TestMCPServeWithTypeScriptSDKClient(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("EXO_TEST_NPM")
	if dir == "" {
		h, _ := os.UserHomeDir()
		dir = filepath.Join(h, ".cache", "exo-ci", "npm")
	}
	_, errSDK := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	_, errNode := exec.LookPath("node")
	if errSDK != nil || errNode != nil {
		if os.Getenv("EXO_REQUIRE_NPM") != "" || os.Getenv("CI") != "" {
			t.Fatalf("node or the MCP TypeScript SDK under %s is missing (.ci/run installs them; EXO_REQUIRE_NPM is set): %v %v", dir, errSDK, errNode)
		}
		t.Skipf("node or the MCP TypeScript SDK under %s is missing: run .ci/run once", dir)
	}
	home, ws, outside := t.TempDir(), t.TempDir(), t.TempDir()
	stopDaemonAtEnd(t, home)
	guarded := filepath.Join(ws, "guarded")
	os.MkdirAll(guarded, 0o755)
	mustRunIn(t, home, guarded, "init") // its constitution asks before bash
	mustRunIn(t, home, guarded, "compile")
	script, _ := filepath.Abs("testdata/ts_client.cjs")
	cmd := exec.Command("node", script, dir, exoBin, guarded, outside)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "EXO_HOME="+home)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the TypeScript client failed: %v\n%s", err, out)
	}
	var got struct {
		Server struct{ Name string }
		Tools  []struct {
			Name     string
			Required []string
		}
		Created struct{ Name, Workspace string }
		Exec    struct {
			ExitCode int `json:"exit_code"`
			Output   string
		}
		Log                            string
		BadIsError                     bool
		BadText                        string
		GuardedIsError, OutsideIsError bool
		GuardedText, OutsideText       string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.Server.Name != "exo" || len(got.Tools) != 11 || got.Created.Name != "ts" || got.Created.Workspace != ws {
		t.Fatalf("%s", out)
	}
	if got.Exec.ExitCode != 0 || got.Exec.Output != "from-typescript\n" || !strings.Contains(got.Log, "bash echo from-typescript") {
		t.Fatalf("exec or log: %s", out)
	}
	if !got.BadIsError || !strings.Contains(got.BadText, "no such session") {
		t.Fatalf("an unknown session is not a tool error: %s", out)
	}
	if !got.GuardedIsError || !strings.Contains(got.GuardedText, "nobody can answer") {
		t.Fatalf("exec ran although the session's rules ask before bash: %s", out)
	}
	if _, err := os.Stat(filepath.Join(guarded, "ran.txt")); err == nil {
		t.Fatal("the refused command ran")
	}
	if !got.OutsideIsError || !strings.Contains(got.OutsideText, "not one the user opened") {
		t.Fatalf("a session was created outside the folders opened to the client: %s", out)
	}
}
