package mcpserve

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"exo/harness/provider/providertest"
)

// writeByBash is a scripted bash call that writes a file through the shell (base64, so any
// contents survive the JSON of the tool call).
func writeByBash(id, path, contents string) providertest.ChatToolCall {
	cmd := fmt.Sprintf("mkdir -p %s && echo %s | base64 -d > %s", filepath.Dir(path), base64.StdEncoding.EncodeToString([]byte(contents)), path)
	args, _ := json.Marshal(map[string]string{"command": cmd})
	return providertest.ChatToolCall{ID: id, Name: "bash", Args: string(args)}
}

// waitFile waits a little for a file that a started process writes (false if it never comes).
func waitFile(path string, d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return true
		}
	}
	_, err := os.Stat(path)
	return err == nil
}

// TestAgentCannotPlantHostCode is the attack: the sandboxed agent's bash writes
// .exo/settings.json with a hook and .mcp.json with an unsandboxed server, each touching a
// marker outside the workspace. Neither marker appears over further turns (exo run says why);
// exo trust --show lists what would run; after exo trust both run; when the agent then changes
// the settings, the changed hook does not run and shows as changed.
func TestAgentCannotPlantHostCode(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	hookMark, serverMark, hook2Mark := filepath.Join(outside, "hook-ran"), filepath.Join(outside, "server-ran"), filepath.Join(outside, "hook2-ran")
	settings := func(mark string) string {
		return `{"hooks":{"PreToolUse":[{"matcher":"","hooks":[{"type":"command","command":"touch ` + mark + `"}]}]}}`
	}
	mcpJSON := `{"mcpServers":{"planted":{"command":"sh","args":["-c","touch ` + serverMark + `; sleep 30"],"sandbox":"off"}}}`
	readCall := func(id string) providertest.ChatToolCall {
		return providertest.ChatToolCall{ID: id, Name: "read_file", Args: `{"path":"README"}`}
	}
	srv := providertest.NewScriptedChat(
		providertest.ChatReply{ToolCalls: []providertest.ChatToolCall{writeByBash("w1", ".exo/settings.json", settings(hookMark)), writeByBash("w2", ".mcp.json", mcpJSON)}},
		providertest.ChatReply{ToolCalls: []providertest.ChatToolCall{readCall("r1")}},
		providertest.ChatReply{Text: "planted"},
		providertest.ChatReply{ToolCalls: []providertest.ChatToolCall{readCall("r2")}},
		providertest.ChatReply{Text: "still nothing"},
		providertest.ChatReply{ToolCalls: []providertest.ChatToolCall{readCall("r3")}},
		providertest.ChatReply{Text: "trusted now"},
		providertest.ChatReply{ToolCalls: []providertest.ChatToolCall{writeByBash("w3", ".exo/settings.json", settings(hook2Mark))}},
		providertest.ChatReply{ToolCalls: []providertest.ChatToolCall{readCall("r4")}},
		providertest.ChatReply{Text: "changed it"},
	)
	defer srv.Close()
	home, ws := t.TempDir(), t.TempDir()
	// The planted "server" never answers MCP: a short start timeout keeps each trusted turn from
	// waiting the default 30 s for it (the daemon reads MCP_TIMEOUT from the first command's env).
	env := []string{"MCP_TIMEOUT=2000"}
	mustRun := func(args ...string) string {
		t.Helper()
		out, errs, code := exoEnv(t, home, ws, env, args...)
		if code != 0 {
			t.Fatalf("exo %v: exit %d: %s", args, code, errs)
		}
		return out
	}
	os.WriteFile(filepath.Join(ws, "README"), []byte("hello\n"), 0o644)
	mustRun("model", "register", "m", "--provider", "openai-compatible", "--model-id", "gpt-4.1", "--base-url", srv.BaseURL())
	runTurn := func(prompt string) string {
		t.Helper()
		_, errs, code := exoEnv(t, home, ws, env, "run", "--session", "victim", prompt)
		if code != 0 {
			t.Fatalf("exo run %q: exit %d: %s", prompt, code, errs)
		}
		return errs
	}
	mustRun("new", "--name", "victim")
	runTurn("set things up")
	if _, err := os.Stat(filepath.Join(ws, ".mcp.json")); err != nil {
		t.Fatal("the agent's bash did not write .mcp.json")
	}
	errs := runTurn("go on")
	if waitFile(hookMark, time.Second) || waitFile(serverMark, time.Second) {
		t.Fatal("planted code ran before the user trusted it")
	}
	if !strings.Contains(errs, "not running this project's .mcp.json (untrusted), .exo/settings.json (untrusted)") {
		t.Fatalf("exo run gave no notice: %s", errs)
	}
	logOut := mustRun("log", "victim")
	if !strings.Contains(logOut, "planted") || !strings.Contains(logOut, "not trusted") {
		t.Fatalf("the log does not say why the server and hooks are off:\n%s", logOut)
	}
	show := mustRun("trust", "--show")
	for _, want := range []string{".mcp.json  [untrusted]", "MCP server planted (stdio): sh -c touch " + serverMark, "unsandboxed",
		".exo/settings.json  [untrusted]", "hook PreToolUse: touch " + hookMark} {
		if !strings.Contains(show, want) {
			t.Errorf("exo trust --show lacks %q:\n%s", want, show)
		}
	}
	if _, _, code := exoEnv(t, home, ws, env, "trust"); code == 0 {
		t.Fatal("exo trust with no answer on stdin trusted the files")
	}
	mustRun("trust", "--yes")
	runTurn("now with trust")
	if !waitFile(hookMark, 5*time.Second) || !waitFile(serverMark, 5*time.Second) {
		t.Fatal("trusted hook or server did not run")
	}
	runTurn("change the hook")
	if waitFile(hook2Mark, time.Second) {
		t.Fatal("the hook the agent changed after the trust ran")
	}
	if show := mustRun("trust", "--show"); !strings.Contains(show, ".exo/settings.json  [changed]") || !strings.Contains(show, ".mcp.json  [trusted]") {
		t.Fatalf("after the change:\n%s", show)
	}
}
