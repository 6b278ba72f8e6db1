package mcp

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/secrets"
)

func TestLoadMergesUserAndProjectWithProjectWinning(t *testing.T) {
	ws, user := t.TempDir(), filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(user, []byte(`{"mcpServers":{"a":{"command":"user-a"},"b":{"url":"https://x/mcp"}}}`), 0o600)
	os.WriteFile(filepath.Join(ws, ProjectFile), []byte(`{"mcpServers":{"a":{"type":"stdio","command":"proj-a","args":["-x"]}},"other":1}`), 0o644)
	got, err := Load(ws, user)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "a" || got[0].Command != "proj-a" || got[0].Scope != ScopeProject || got[1].Transport() != TransportHTTP || got[1].Scope != ScopeUser {
		t.Fatalf("merged %+v", got)
	}
	// Add keeps unknown keys of the file.
	if err := Add(filepath.Join(ws, ProjectFile), "c", ServerConfig{Command: "c"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(ws, ProjectFile))
	if !strings.Contains(string(b), `"other": 1`) || !strings.Contains(string(b), `"c"`) {
		t.Fatalf("rewritten file %s", b)
	}
	if ok, err := Remove(filepath.Join(ws, ProjectFile), "c"); !ok || err != nil {
		t.Fatalf("remove: %v %v", ok, err)
	}
}

// A malformed .mcp.json is recorded once per session as a failed mcp.server event.
func TestMalformedConfigIsRecordedOnce(t *testing.T) {
	r := newRig(t, nil, "name: x\nturns:\n  - text: hi\n")
	os.WriteFile(filepath.Join(r.ws, ProjectFile), []byte(`{"mcpServers": {"a": `), 0o644)
	for range 3 {
		if tools := r.m.Tools(t.Context(), r.s.ID); tools != nil {
			t.Fatal(tools)
		}
	}
	st := events[harness.MCPServer](t, r.h, r.s.ID, harness.TypeMCPServer)
	if len(st) != 1 || st[0].State != harness.MCPFailed || !strings.Contains(st[0].Error, ".mcp.json") {
		t.Fatalf("events %+v", st)
	}
}

func TestBadConfigIsAClearError(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, ProjectFile), []byte(`{"mcpServers": [1,2]}`), 0o644)
	if _, err := Load(ws, ""); err == nil || !strings.Contains(err.Error(), ".mcp.json") {
		t.Fatalf("err %v", err)
	}
	for _, c := range []ServerConfig{{}, {Type: "sse"}, {Type: "ws", URL: "x"}, {Command: "x", Approval: "maybe"}} {
		if c.Check() == nil {
			t.Fatalf("%+v passed the check", c)
		}
	}
	for _, n := range []string{"", "a__b", "has space", strings.Repeat("x", 41)} {
		if ValidName(n) == nil {
			t.Fatalf("name %q accepted", n)
		}
	}
}

func TestExpandVariablesAndSecrets(t *testing.T) {
	r := Resolver{
		LookupEnv: func(k string) (string, bool) {
			v, ok := map[string]string{"HOME": "/h", "TOKEN": "from-env"}[k]
			return v, ok
		},
		Secret: func(n string) ([]byte, error) {
			if n == "TOKEN" || n == "gh" {
				return []byte("sealed-" + n), nil
			}
			return nil, secrets.ErrNotFound
		},
	}
	cases := map[string]string{
		"${HOME}/x":             "/h/x",
		"Bearer ${secret:gh}":   "Bearer sealed-gh",
		"${gh}":                 "sealed-gh", // not in the environment: the sealed secret of that name
		"${TOKEN}":              "from-env",  // the environment first, as Claude Code does
		"${secret:TOKEN}":       "sealed-TOKEN",
		"${NOPE:-dflt}":         "dflt",
		"plain $HOME stays":     "plain $HOME stays",
		"${HOME}${secret:gh}!":  "/hsealed-gh!",
		"${secret:NOPE:-empty}": "empty",
	}
	for in, want := range cases {
		if got, err := r.Expand(in); err != nil || got != want {
			t.Errorf("Expand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := r.Expand("${NOPE}")
	if err == nil || !strings.Contains(err.Error(), "exo secret set NOPE") {
		t.Fatalf("missing variable: %v", err)
	}
	failing := Resolver{Secret: func(string) ([]byte, error) { return nil, errors.New("vault closed") }}
	if _, err := failing.Expand("${secret:x}"); err == nil {
		t.Fatal("a vault error was swallowed")
	}
}

func TestToolNamesFitProviders(t *testing.T) {
	if n := toolName("my.srv", "get file/info"); n != "mcp__my_srv__get_file_info" {
		t.Fatal(n)
	}
	long := toolName("server", strings.Repeat("t", 100))
	if len(long) != 64 || long == toolName("server", strings.Repeat("t", 99)) {
		t.Fatalf("long name %q", long)
	}
}

// A server whose config names a secret that is not sealed fails to start with an event that
// names the variable; the other servers still offer their tools.
func TestMissingSecretFailsOnlyThatServer(t *testing.T) {
	r := newRig(t, map[string]ServerConfig{
		"web": {Type: "http", URL: "http://127.0.0.1:9/mcp", Headers: map[string]string{"Authorization": "Bearer ${secret:nope}"}},
	}, "name: x\nturns:\n  - text: hi\n")
	if tools := r.m.Tools(t.Context(), r.s.ID); len(tools) != 0 {
		t.Fatalf("tools %v", tools)
	}
	st := events[harness.MCPServer](t, r.h, r.s.ID, harness.TypeMCPServer)
	if len(st) != 1 || st[0].State != harness.MCPFailed || !strings.Contains(st[0].Error, "${secret:nope}") {
		t.Fatalf("events %+v", st)
	}
	res := r.m.Call(t.Context(), executor.ExtCall{Session: r.s.ID, Branch: r.s.Branch, Workspace: r.ws, Name: "mcp__web__x"})
	if !res.IsError || !strings.Contains(res.Text, "not running") {
		t.Fatalf("call %+v", res)
	}
}
