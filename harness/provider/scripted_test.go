package provider

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func scriptPath(name string) string {
	if name == "demo.yaml" { // the built-in demo lives with the package that embeds it
		return filepath.Join("..", "demo", name)
	}
	return filepath.Join("..", "..", "testdata", "scripts", name)
}

func TestScriptsInTestdataLoad(t *testing.T) {
	files, _ := filepath.Glob(scriptPath("*.yaml"))
	if len(files) < 3 {
		t.Fatalf("found %d scripts", len(files))
	}
	for _, f := range files {
		if _, err := LoadScript(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestScriptedDemoPlaysTheCodingTask(t *testing.T) {
	p, err := NewScriptedFile(scriptPath("demo.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var waited time.Duration
	p.Sleep = func(_ context.Context, d time.Duration) error { waited += d; return nil }
	wantEq(t, "name", p.Name(), "scripted:demo")

	req := Request{Model: "scripted", Messages: []Message{{Role: RoleUser, Text: "write hello.py and run it"}}}
	var tools []string
	for turn := 1; ; turn++ {
		rec := &recorder{}
		resp, err := p.Stream(context.Background(), req, rec.add)
		if err != nil {
			t.Fatalf("turn %d: %v", turn, err)
		}
		texts, args, _ := rec.texts()
		if strings.Join(texts, "") != resp.Text {
			t.Errorf("turn %d: deltas do not add up to the text", turn)
		}
		for _, s := range texts {
			if len([]rune(s)) > 3 {
				t.Errorf("turn %d: piece %q longer than chunk 3", turn, s)
			}
		}
		if len(resp.ToolCalls) == 0 {
			wantEq(t, "stop", resp.StopReason, StopEndTurn)
			if !strings.Contains(resp.Text, "scripted demo model") {
				t.Errorf("final answer does not say it is scripted: %q", resp.Text)
			}
			break
		}
		wantEq(t, "stop", resp.StopReason, StopToolUse)
		wantEq(t, "args pieces", strings.Join(args, ""), string(resp.ToolCalls[0].Arguments))
		c := resp.ToolCalls[0]
		tools = append(tools, c.Name)
		req.Messages = append(req.Messages, Message{Role: RoleAssistant, Text: resp.Text, ToolCalls: resp.ToolCalls},
			Message{Role: RoleTool, ToolCallID: c.ID, Text: "ok"})
		if c.Name == "write_file" {
			var a struct{ Path, Content string }
			if err := json.Unmarshal(c.Arguments, &a); err != nil || a.Path != "hello.py" || !strings.Contains(a.Content, "print(") {
				t.Errorf("write_file args = %s (%v)", c.Arguments, err)
			}
		}
		if c.Name == "bash" {
			wantEq(t, "bash args", string(c.Arguments), `{"command":"python3 hello.py","timeout_s":30}`)
			wantEq(t, "call id", c.ID, "call_3_1")
		}
	}
	wantEq(t, "tools", tools, []string{"list_dir", "write_file", "bash"})
	if waited < 250*time.Millisecond {
		t.Errorf("waited %v, want the script's delays", waited)
	}

	req.Messages = append(req.Messages, Message{Role: RoleAssistant, Text: "done"})
	_, err = p.Stream(context.Background(), req, nil)
	if !errors.Is(err, ErrScript) || !strings.Contains(err.Error(), "no turn 5: the script has 4") {
		t.Errorf("past the end: %v", err)
	}
}

func TestScriptedFailures(t *testing.T) {
	p, err := NewScriptedFile(scriptPath("failures.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	resp, err := p.Stream(context.Background(), Request{}, rec.add)
	if !errors.Is(err, ErrStreamCut) || resp.Text != "" || len(rec.deltas) == 0 {
		t.Errorf("err = %v, resp = %+v, deltas = %d", err, resp, len(rec.deltas))
	}
	s, _ := ParseScript("x", []byte("turns:\n  - fail: overloaded\n"))
	if _, err := NewScripted(s).Stream(context.Background(), Request{}, nil); !errors.Is(err, ErrOverloaded) {
		t.Errorf("err = %v", err)
	}
}

func TestScriptedCancel(t *testing.T) {
	p, _ := NewScriptedFile(scriptPath("demo.yaml"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Stream(ctx, Request{}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

func TestParseScriptErrors(t *testing.T) {
	for _, bad := range []string{
		"turns: []\n",
		"turns:\n  - {}\n",
		"turns:\n  - text: hi\n    colour: red\n",
		"turns:\n  - fail: explode\n",
		"turns:\n  - tool_calls:\n      - args: {a: 1}\n",
		"name: 'bad name'\nturns:\n  - text: hi\n",
	} {
		if _, err := ParseScript("x", []byte(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

// TestDemoScriptRuns carries out the demo's write_file and bash calls in a
// temporary directory, to prove the script it writes really runs.
func TestDemoScriptRuns(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	s, err := LoadScript(scriptPath("demo.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, turn := range s.Turns {
		for _, c := range turn.ToolCalls {
			switch c.Name {
			case "write_file":
				path := filepath.Join(dir, c.Args["path"].(string))
				if err := os.WriteFile(path, []byte(c.Args["content"].(string)), 0o644); err != nil {
					t.Fatal(err)
				}
			case "bash":
				cmd := exec.Command("sh", "-c", c.Args["command"].(string))
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(python)+":/usr/bin:/bin")
				out, err := cmd.CombinedOutput()
				if err != nil || !strings.HasPrefix(string(out), "hello from exo on Python 3") {
					t.Fatalf("bash %q: %v\n%s", c.Args["command"], err, out)
				}
			}
		}
	}
}
