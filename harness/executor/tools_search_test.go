package executor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSearchToolsRespectGitignore runs glob and grep over a workspace with nested .gitignore
// files and a negation: ignored files are left out (and the empty answer says so) until
// include_ignored asks for them; a file named by path is searched whatever the ignores say.
func TestSearchToolsRespectGitignore(t *testing.T) {
	h, s, ws := setup(t, "demo.yaml")
	x := New(h, Options{})
	tc := toolCtx{x: x, session: s.ID, branch: s.Branch, ws: ws}
	files := map[string]string{
		".gitignore":          "*.log\ngen/\n",
		"app.go":              "NEEDLE in app\n",
		"debug.log":           "NEEDLE in log\n",
		"gen/out.go":          "NEEDLE generated\n",
		"pkg/.gitignore":      "!keep.log\nlocal.go\n",
		"pkg/keep.log":        "NEEDLE kept\n",
		"pkg/local.go":        "NEEDLE local\n",
		"pkg/lib.go":          "NEEDLE lib\n",
		"node_modules/x/i.js": "NEEDLE dep\n",
	}
	for p, c := range files {
		full := filepath.Join(ws, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(c), 0o644)
	}
	call := func(run func(context.Context, toolCtx, json.RawMessage) toolOutput, args string) string {
		out := run(context.Background(), tc, json.RawMessage(args))
		if out.isError {
			t.Fatalf("%s: %s", args, out.text)
		}
		return out.text
	}
	grep := call(runGrep, `{"pattern":"NEEDLE"}`)
	glob := call(runGlob, `{"pattern":"**/*"}`)
	for _, want := range []string{"app.go", "pkg/keep.log", "pkg/lib.go"} {
		if !strings.Contains(grep, want) || !strings.Contains(glob, want) {
			t.Errorf("%s missing:\ngrep %s\nglob %s", want, grep, glob)
		}
	}
	for _, hidden := range []string{"debug.log", "gen/", "pkg/local.go", "node_modules"} {
		if strings.Contains(grep, hidden) || strings.Contains(glob, hidden) {
			t.Errorf("%s should be ignored:\ngrep %s\nglob %s", hidden, grep, glob)
		}
	}
	all := call(runGrep, `{"pattern":"NEEDLE","include_ignored":true}`)
	allGlob := call(runGlob, `{"pattern":"**/*.{go,log,js}","include_ignored":true}`)
	for _, p := range []string{"debug.log", "gen/out.go", "pkg/local.go", "node_modules/x/i.js"} {
		if !strings.Contains(all, p) || !strings.Contains(allGlob, p) {
			t.Errorf("include_ignored: %s missing:\n%s\n%s", p, all, allGlob)
		}
	}
	if out := call(runGrep, `{"pattern":"generated"}`); !strings.Contains(out, "no matches") || !strings.Contains(out, "include_ignored") {
		t.Errorf("empty answer does not mention ignored files: %q", out)
	}
	if out := call(runGrep, `{"pattern":"NEEDLE","path":"debug.log"}`); !strings.Contains(out, "debug.log:1: NEEDLE in log") {
		t.Errorf("a file named by path was not searched: %q", out)
	}
	if out := call(runGrep, `{"pattern":"NEEDLE","path":"gen"}`); !strings.Contains(out, "gen/out.go:1:") {
		t.Errorf("an ignored folder named by path was not searched: %q", out)
	}
	if out := call(runGlob, `{"pattern":"*.go"}`); out != "app.go" {
		t.Errorf("*.go should match the top folder only: %q", out)
	}
	if out := call(runGlob, `{"pattern":"missing/*.go"}`); !strings.HasPrefix(out, "no files match") {
		t.Errorf("a missing folder: %q", out)
	}
}
