package crash

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"exo/harness/extexec/modeltest"
)

// externalScript is what the scripted Messages server plays for Claude Code.
const externalScript = `
prompts:
  - when: write a file
    turns:
      - text: "Writing."
        tool_calls:
          - name: mcp__exo__bash
            input: {command: "echo hi > out.txt"}
      - text: "Done."
  - when: write slowly
    turns:
      - text: "Writing slowly."
        tool_calls:
          - name: mcp__exo__bash
            input: {command: "echo part > half.txt; sleep 60; echo rest >> half.txt"}
      - text: "Done."
  - when: go on
    turns:
      - text: "Carrying on."
`

// externalHome registers a model served by a scripted Messages server (its key sealed) in a new
// EXO_HOME, for turns run by Claude Code; it skips without the real CLI (EXO_CLAUDE_BIN).
func externalHome(t *testing.T) (home, ws string) {
	t.Helper()
	if os.Getenv("EXO_CLAUDE_BIN") == "" {
		if os.Getenv("EXO_REQUIRE_CLAUDE") != "" {
			t.Fatal("EXO_REQUIRE_CLAUDE is set but EXO_CLAUDE_BIN is not")
		}
		t.Skip("the real Claude Code CLI is needed (EXO_CLAUDE_BIN; .ci/run installs it)")
	}
	sc, err := modeltest.ParseScript([]byte(externalScript))
	if err != nil {
		t.Fatal(err)
	}
	srv := modeltest.NewAnthropic(sc)
	t.Cleanup(srv.Close)
	home, ws = t.TempDir(), t.TempDir()
	if out, errs, code := exoEnv(t, home, ws, []string{"CRASH_KEY=sk-ant-crash-0123456789"}, "secret", "set", "anthropic-key", "--env", "CRASH_KEY"); code != 0 {
		t.Fatalf("secret set: exit %d %s %s", code, out, errs)
	}
	mustRunIn(t, home, ws, "model", "register", "m", "--provider", "anthropic", "--model-id", "claude-sonnet-4-5",
		"--base-url", srv.URL, "--secret", "anthropic-key")
	return home, ws
}

// TestKillDuringExternalStep kills exo at each point of a step of Claude Code's turn, where a
// step's events share one commit (the answer, tool.started, tool.completed and the snapshot):
// at the step's first commit, as the tool is about to run (its start not durable yet), while a command
// runs that has half written a file (its start durable by then), and after the step's commit
// but before the result reached Claude. Each time the session opens interrupted, verifies, shows
// what happened honestly, and the next turn runs.
func TestKillDuringExternalStep(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		point, prompt string
		// check looks at the log (JSON lines) and the workspace after the kill.
		check func(t *testing.T, log, ws string)
	}{
		{"after.step.started", "write a file", func(t *testing.T, log, ws string) {
			if exists(ws, "out.txt") && !strings.Contains(log, `"tool.started"`) {
				t.Fatalf("the command ran unrecorded although the kill came at the step's first commit:\n%s", log)
			}
		}},
		{"tool.run", "write a file", func(t *testing.T, log, ws string) {
			if exists(ws, "out.txt") {
				t.Fatal("the command ran after the kill point before it")
			}
			if strings.Contains(log, `"tool.completed"`) && !strings.Contains(log, `"interrupted":true`) {
				t.Fatalf("a call that never ran has a result:\n%s", log)
			}
		}},
		{"after.tool.started@3s", "write slowly", func(t *testing.T, log, ws string) {
			b, _ := os.ReadFile(filepath.Join(ws, "half.txt"))
			if string(b) != "part\n" {
				t.Fatalf("the kill did not land while the command ran: half.txt %q", b)
			}
			if !strings.Contains(log, `"model.completed"`) || !strings.Contains(log, `"interrupted":true`) {
				t.Fatalf("the call killed mid-run is not closed as interrupted after its answer:\n%s", log)
			}
		}},
		{"after.workspace.snapshot#2", "write a file", func(t *testing.T, log, ws string) {
			if !exists(ws, "out.txt") {
				t.Fatal("the command did not run")
			}
			for _, typ := range []string{`"model.completed"`, `"tool.started"`, `"tool.completed"`} {
				if strings.Count(log, typ) != 1 {
					t.Fatalf("the step's commit did not hold one %s:\n%s", typ, log)
				}
			}
			if strings.Contains(log, `"interrupted":true`) {
				t.Fatalf("a call whose result was committed is shown interrupted:\n%s", log)
			}
		}},
	} {
		t.Run(c.point, func(t *testing.T) {
			home, ws := externalHome(t)
			killedAt(t, home, ws, c.point, "run", "--executor", "claude-code", c.prompt)
			noProcessLeft(t, home)
			rows := sessionRows(t, home)
			if len(rows) != 1 || rows[0].Status != "interrupted" {
				t.Fatalf("after a kill at %s the session is %+v, want interrupted", c.point, rows)
			}
			log := mustRun(t, home, "log", rows[0].ID, "--json")
			if !strings.Contains(log, `"turn.interrupted"`) {
				t.Fatalf("no turn.interrupted:\n%s", log)
			}
			c.check(t, log, ws)
			inOrder(t, log)
			checkRecovered(t, home, "", c.point)
			if out, errs, code := exoEnv(t, home, ws, nil, "run", "--session", rows[0].ID, "--executor", "claude-code", "go on"); code != 0 || !strings.Contains(out, "Carrying on.") {
				t.Fatalf("the next turn: exit %d %s %s", code, out, errs)
			}
			if out, errs, code := run(t, home, "verify"); code != 0 {
				t.Fatalf("verify after the next turn: exit %d %s %s", code, out, errs)
			}
		})
	}
}

// noProcessLeft fails when, a minute after the daemon died, a process still runs whose
// environment names home (an agent's HOME and config folders are under it; its sandboxed shell's
// folders too): killing exo must not leave its agent or the agent's commands behind.
func noProcessLeft(t *testing.T, home string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var left []string
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
			if err == nil && bytes.Contains(env, []byte(home+"/")) {
				cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
				left = append(left, e.Name()+" "+strings.ReplaceAll(string(cmd), "\x00", " "))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes left after the daemon died:\n%s", strings.Join(left, "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// exists reports whether ws holds a file named name.
func exists(ws, name string) bool {
	_, err := os.Stat(filepath.Join(ws, name))
	return err == nil
}

// inOrder checks that a log (JSON lines) keeps the order things happen in: a step's request
// before its answer, a call's answer before its start, its start before its result (unless the
// result closes a call as interrupted), and the interruption last.
func inOrder(t *testing.T, log string) {
	t.Helper()
	answered, started := map[string]bool{}, map[string]bool{}
	requested, interrupted := false, false
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		var e struct {
			Type string
			Data struct {
				CallID      string `json:"call_id"`
				Interrupted bool
				ToolCalls   []struct{ ID string } `json:"tool_calls"`
			}
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if interrupted && e.Type != "turn.interrupted" {
			t.Fatalf("%s after turn.interrupted:\n%s", e.Type, log)
		}
		switch e.Type {
		case "model.requested":
			requested = true
		case "model.completed":
			if !requested {
				t.Fatalf("an answer before its request:\n%s", log)
			}
			for _, c := range e.Data.ToolCalls {
				answered[c.ID] = true
			}
		case "tool.started":
			if !answered[e.Data.CallID] {
				t.Fatalf("call %s started before the answer that asked for it:\n%s", e.Data.CallID, log)
			}
			started[e.Data.CallID] = true
		case "tool.completed":
			if !started[e.Data.CallID] && !e.Data.Interrupted {
				t.Fatalf("call %s has a result but no start:\n%s", e.Data.CallID, log)
			}
		case "turn.interrupted":
			interrupted = true
		}
	}
}
