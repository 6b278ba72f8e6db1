package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/sandbox"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// npmServer returns the entry script of an npm MCP server installed by .ci/run under
// EXO_TEST_NPM (default ~/.cache/exo-ci/npm). It skips when absent locally and fails when
// EXO_REQUIRE_NPM (set by .ci/run) or CI is set, so a broken install cannot pass silently.
func npmServer(t testing.TB, pkg string) string {
	t.Helper()
	dir := os.Getenv("EXO_TEST_NPM")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "exo-ci", "npm")
	}
	entry := filepath.Join(dir, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js")
	_, errEntry := os.Stat(entry)
	_, errNode := execLookPath("node")
	if errEntry != nil || errNode != nil {
		if npmRequired() {
			t.Fatalf("node or %s under %s is missing (.ci/run installs them; EXO_REQUIRE_NPM is set): %v %v", pkg, dir, errEntry, errNode)
		}
		t.Skipf("node or %s under %s is missing: run .ci/run once (npm install) to test against it", pkg, dir)
	}
	return entry
}

// npmRequired reports whether the npm test servers must be present (CI says so).
func npmRequired() bool { return os.Getenv("EXO_REQUIRE_NPM") != "" || os.Getenv("CI") != "" }

// rig is a harness with a session whose workspace has a .mcp.json and a scripted model.
type rig struct {
	h  *harness.Harness
	s  *harness.Session
	ws string
	m  *Manager
}

// newRig writes servers into the workspace's .mcp.json and the script (YAML) for the model.
func newRig(t testing.TB, servers map[string]ServerConfig, script string) *rig {
	t.Helper()
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("# sample project\nhello from the workspace\n"), 0o644)
	f := &File{MCPServers: servers}
	if err := f.Write(filepath.Join(ws, ProjectFile)); err != nil {
		t.Fatal(err)
	}
	sp := filepath.Join(t.TempDir(), "script.yaml")
	os.WriteFile(sp, []byte(script), 0o644)
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "demo", Provider: "scripted", BaseURL: sp}); err != nil {
		t.Fatal(err)
	}
	s, err := h.NewSession(harness.NewSessionOptions{Name: "t", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	m := NewManager(h, Options{UserFile: filepath.Join(t.TempDir(), "none.json"), LookupEnv: func(string) (string, bool) { return "", false }})
	t.Cleanup(m.Close)
	return &rig{h: h, s: s, ws: ws, m: m}
}

// run prompts the session once through the default executor with the manager's tools.
func (r *rig) run(t *testing.T, opts executor.Options) executor.Result {
	t.Helper()
	opts.Headless = true
	opts.ToolSources = []executor.ToolSource{r.m}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := executor.New(r.h, opts).Prompt(ctx, r.s.ID, "go", "test")
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// events returns the session's decoded events of a type.
func events[T any](t *testing.T, h *harness.Harness, id, typ string) []*T {
	t.Helper()
	evs, err := h.Events(id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []*T
	for _, e := range evs {
		if e.Type == typ {
			p, err := harness.Decode(e)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, p.(*T))
		}
	}
	return out
}

// allEventBytes is every event of the session, raw, for secret searches.
func allEventBytes(t *testing.T, h *harness.Harness, id string) string {
	evs, err := h.Events(id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "%s %s %s\n", e.Type, e.Actor, e.Data)
	}
	return b.String()
}

func byTool(t *testing.T, r *rig, tool string) []*harness.ToolCompleted {
	var out []*harness.ToolCompleted
	for _, tc := range events[harness.ToolCompleted](t, r.h, r.s.ID, harness.TypeToolCompleted) {
		if tc.Tool == tool {
			out = append(out, tc)
		}
	}
	return out
}

func jsonArgs(v any) string { b, _ := json.Marshal(v); return string(b) }
