package executors

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/claude"
	"exo/harness/extexec/codex"
	"exo/harness/extexec/modeltest"
	"exo/harness/provider"
	"exo/sandbox"
)

// One conversation goes Claude Code → exo's own executor → Claude Code (resumed from a
// transcript exo writes) → Codex, each turn calling exo's bash. Every request the model server
// gets must be well-formed for the Messages API as the executor that sent it offers its tools:
// each tool_use names a tool the request offers (exo's executor offers bash, Claude
// mcp__exo__bash, Codex bash) and is answered by a tool_result in the next message.
func TestOneConversationAcrossExecutors(t *testing.T) {
	for _, find := range []func() (string, error){claude.FindBinary, codex.FindBinary} {
		if _, err := find(); err != nil {
			if os.Getenv("EXO_REQUIRE_CLAUDE") != "" || os.Getenv("EXO_REQUIRE_CODEX") != "" {
				t.Fatal(err)
			}
			t.Skip(err)
		}
	}
	sc, err := modeltest.LoadScript(filepath.Join("testdata", "switch.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	srv := modeltest.NewAnthropic(sc)
	t.Cleanup(srv.Close)
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	h.SetSecret("anthropic-key", []byte("sk-ant-switch-test-0123456789"))
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "sonnet", Provider: "anthropic", ModelID: "claude-sonnet-4-5",
		BaseURL: srv.URL, Secret: "anthropic-key"}); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	s, err := h.NewSession(harness.NewSessionOptions{Name: "switch", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	open := func(name string) Runner {
		x, err := Open(h, name, Options{Exec: executor.Options{Headless: true}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.Close() })
		return x
	}
	cc := open(claude.Name)
	steps := []struct {
		x      Runner
		prompt string
		file   string
	}{
		{cc, "step one with claude", "one.txt"},
		{open(Default), "step two with exo", "two.txt"},
		{cc, "step three with claude", "three.txt"},
		{open(codex.Name), "step four with codex", "four.txt"},
	}
	for i, st := range steps {
		seen := len(srv.Requests())
		res, err := st.x.Prompt(context.Background(), s.ID, st.prompt, "test")
		if err != nil || res.Failure != "" || res.Steps != 2 {
			t.Fatalf("turn %d (%s): %v %+v", i+1, st.prompt, err, res)
		}
		if _, err := os.Stat(filepath.Join(ws, st.file)); err != nil {
			t.Fatalf("turn %d did not run bash: %v", i+1, err)
		}
		reqs := srv.Requests()[seen:]
		if len(reqs) < 2 {
			t.Fatalf("turn %d: %d model calls", i+1, len(reqs))
		}
		for _, r := range reqs {
			if err := wellFormed(r.Body); err != nil {
				t.Fatalf("turn %d (%s) sent a malformed request: %v\n%s", i+1, st.prompt, err, r.Body)
			}
		}
		// The turn's last call carries every earlier turn's answers.
		last := string(reqs[len(reqs)-1].Body)
		for _, prev := range []string{"One done.", "Two done.", "Three done."}[:i] {
			if !strings.Contains(last, prev) {
				t.Fatalf("turn %d's request lacks %q:\n%s", i+1, prev, last)
			}
		}
	}
	x := executor.New(h, executor.Options{})
	v, err := x.ViewOf(s.Branch, "claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, m := range v.Messages {
		for _, c := range m.ToolCalls {
			calls++
			if c.Name != "bash" {
				t.Fatalf("the prompt view names exo's bash %q", c.Name)
			}
		}
	}
	if calls != 4 || v.Messages[len(v.Messages)-1].Role != provider.RoleAssistant || v.Messages[len(v.Messages)-1].Text != "Four done." {
		t.Fatalf("prompt view: %d calls, %+v", calls, v.Messages)
	}
}

// wellFormed checks a Messages request: every tool_use names an offered tool, has an id of its
// own and is answered by a tool_result in the next message, and every tool_result answers a
// tool_use of the message before it.
func wellFormed(body []byte) error {
	var req struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return err
	}
	var offered []string
	for _, t := range req.Tools {
		offered = append(offered, t.Name)
	}
	type block struct {
		Type      string `json:"type"`
		ID        string `json:"id"`
		Name      string `json:"name"`
		ToolUseID string `json:"tool_use_id"`
	}
	ids := map[string]bool{}
	var open []string // tool_use ids of the previous message
	for i, m := range req.Messages {
		var bs []block
		_ = json.Unmarshal(m.Content, &bs) // a string content has no blocks
		var uses, results []string
		for _, b := range bs {
			switch b.Type {
			case "tool_use":
				if !slices.Contains(offered, b.Name) {
					return fmt.Errorf("message %d calls %q, which the request does not offer (%v)", i, b.Name, offered)
				}
				if ids[b.ID] {
					return fmt.Errorf("message %d repeats tool_use id %s", i, b.ID)
				}
				ids[b.ID] = true
				uses = append(uses, b.ID)
			case "tool_result":
				if !slices.Contains(open, b.ToolUseID) {
					return fmt.Errorf("message %d answers %s, not a call of the message before", i, b.ToolUseID)
				}
				results = append(results, b.ToolUseID)
			}
		}
		for _, id := range open {
			if !slices.Contains(results, id) {
				return fmt.Errorf("message %d leaves tool_use %s unanswered", i, id)
			}
		}
		if len(uses) > 0 && m.Role != "assistant" || len(results) > 0 && m.Role != "user" {
			return fmt.Errorf("message %d (%s) holds tool_use %v, tool_result %v", i, m.Role, uses, results)
		}
		open = uses
	}
	return nil
}
