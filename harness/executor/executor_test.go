package executor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/sandbox"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// setup opens a harness with a scripted model playing the named script from testdata.
func setup(t *testing.T, script string) (*harness.Harness, *harness.Session, string) {
	t.Helper()
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	path, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "scripts", script))
	if script == "demo.yaml" { // the built-in demo lives with the package that embeds it
		path, _ = filepath.Abs(filepath.Join("..", "demo", script))
	}
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "demo", Provider: "scripted", BaseURL: path}); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("# sample\n"), 0o644)
	s, err := h.NewSession(harness.NewSessionOptions{Name: "t", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	return h, s, ws
}

func TestDemoTurnWritesAndRunsFile(t *testing.T) {
	h, s, ws := setup(t, "demo.yaml")
	var streamed strings.Builder
	x := New(h, Options{Headless: true, OnDelta: func(_, d string) { streamed.WriteString(d) }})
	res, err := x.Prompt(context.Background(), s.ID, "write me a hello script", "test")
	if err != nil {
		t.Fatal(err)
	}
	if res.Steps != 4 || res.ToolCalls != 3 || !strings.Contains(res.Response, "Done.") || res.Failure != "" {
		t.Fatalf("result %+v", res)
	}
	if !strings.Contains(streamed.String(), "Let me run it.") {
		t.Fatalf("deltas not streamed: %q", streamed.String())
	}
	if b, err := os.ReadFile(filepath.Join(ws, "hello.py")); err != nil || !strings.Contains(string(b), "hello from exo") {
		t.Fatalf("hello.py: %q %v", b, err)
	}
	evs, _ := h.Events(s.ID, 0, 0)
	var types []string
	var bashOut string
	for _, e := range evs {
		types = append(types, e.Type)
		if e.Type == harness.TypeToolCompleted {
			p, _ := harness.Decode(e)
			if tc := p.(*harness.ToolCompleted); tc.Tool == "bash" {
				bashOut = tc.Output
			}
		}
	}
	if !strings.Contains(bashOut, "hello from exo on Python") {
		t.Fatalf("bash output %q", bashOut)
	}
	joined := strings.Join(types, " ")
	for _, want := range []string{"workspace.snapshot", "model.completed", "tool.started", "tool.completed"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("no %s in %s", want, joined)
		}
	}
	st, _ := h.State(s.ID)
	if st.Status != harness.StatusIdle || st.ModelCalls != 4 || len(st.OpenCalls) != 0 {
		t.Fatalf("state %+v", st)
	}
}

func TestEveryToolAndBackgroundTask(t *testing.T) {
	h, s, ws := setup(t, "tools.yaml")
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	x := New(h, Options{Headless: true})
	res, err := x.Prompt(context.Background(), s.ID, "use every tool", "test")
	if err != nil || res.Failure != "" {
		t.Fatalf("%+v %v", res, err)
	}
	b, _ := os.ReadFile(filepath.Join(ws, "notes.txt"))
	if string(b) != "first line\n2nd line\n" {
		t.Fatalf("notes.txt %q", b)
	}
	evs, _ := h.Events(s.ID, 0, 0)
	outputs := map[string]string{}
	for _, e := range evs {
		if e.Type == harness.TypeToolCompleted {
			p, _ := harness.Decode(e)
			tc := p.(*harness.ToolCompleted)
			outputs[tc.Tool] += tc.Output
			if tc.IsError {
				t.Errorf("%s failed: %s", tc.Tool, tc.Output)
			}
		}
	}
	if !strings.Contains(outputs["grep"], "main.go:3: func main() {}") || !strings.Contains(outputs["glob"], "main.go") ||
		!strings.Contains(outputs["read_file"], "1\tfirst line") || !strings.Contains(outputs["bash"], "started background task") {
		t.Fatalf("outputs %v", outputs)
	}
}

func TestFileToolsStayInWorkspace(t *testing.T) {
	h, s, ws := setup(t, "demo.yaml")
	x := New(h, Options{})
	tc := toolCtx{x: x, session: s.ID, branch: s.Branch, ws: ws}
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(ws, "link"))
	for _, p := range []string{"../escape.txt", "/etc/passwd", "link/x.txt"} {
		out := runWriteFile(context.Background(), tc, []byte(`{"path":"`+p+`","content":"x"}`))
		if !out.isError {
			t.Errorf("write to %s allowed: %s", p, out.text)
		}
	}
	if out := runReadFile(context.Background(), tc, []byte(`{"path":"../../etc/passwd"}`)); !out.isError {
		t.Errorf("read outside allowed")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("a file was written outside the workspace")
	}
}

// TestEditKeepsExecutableBit edits and rewrites an executable script: it stays executable.
func TestEditKeepsExecutableBit(t *testing.T) {
	h, s, ws := setup(t, "demo.yaml")
	x := New(h, Options{})
	tc := toolCtx{x: x, session: s.ID, branch: s.Branch, ws: ws}
	script := filepath.Join(ws, "run.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho one\n"), 0o755)
	if out := runEditFile(context.Background(), tc, []byte(`{"path":"run.sh","old_string":"one","new_string":"two"}`)); out.isError {
		t.Fatal(out.text)
	}
	if out := runWriteFile(context.Background(), tc, []byte(`{"path":"run.sh","content":"#!/bin/sh\necho three\n"}`)); out.isError {
		t.Fatal(out.text)
	}
	if fi, _ := os.Stat(script); fi.Mode().Perm() != 0o755 {
		t.Fatalf("mode after edits %v, want 0755", fi.Mode().Perm())
	}
	if out := runWriteFile(context.Background(), tc, []byte(`{"path":"new/dir/f.txt","content":"x"}`)); out.isError {
		t.Fatal(out.text)
	}
	if fi, _ := os.Stat(filepath.Join(ws, "new/dir/f.txt")); fi.Mode().Perm() != 0o644 {
		t.Fatalf("new file mode %v", fi.Mode().Perm())
	}
}
