package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness/provider/providertest"
)

// responsesSSE renders Responses stream events as a live service sends them.
func responsesSSE(events ...map[string]any) string {
	var b strings.Builder
	for i, ev := range events {
		ev["sequence_number"] = i
		raw, _ := json.Marshal(ev)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", ev["type"], raw)
	}
	return b.String()
}

// TestHugeToolArgumentsThroughExo streams a write_file call of ~170 KB of arguments as the
// Responses API sends them (1,700 deltas, then function_call_arguments.done and
// output_item.done each holding all of them), split at arbitrary bytes: the file holds the
// content once, and the next request sends the call's arguments back once, as valid JSON.
func TestHugeToolArgumentsThroughExo(t *testing.T) {
	t.Parallel()
	content := strings.Repeat("0123456789abcdef\\n", 10_000)
	args := `{"path":"big.txt","content":"` + content + `"}`
	created := map[string]any{"id": "resp_1", "model": "gpt-5.1", "status": "in_progress", "output": []any{}, "usage": nil}
	item := map[string]any{"id": "fc_1", "type": "function_call", "status": "in_progress", "arguments": "", "call_id": "call_1", "name": "write_file"}
	evs := []map[string]any{
		{"type": "response.created", "response": created},
		{"type": "response.output_item.added", "output_index": 0, "item": item},
	}
	for i := 0; i < len(args); i += 100 {
		evs = append(evs, map[string]any{"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0,
			"delta": args[i:min(i+100, len(args))], "obfuscation": "Xy"})
	}
	done := map[string]any{"id": "fc_1", "type": "function_call", "status": "completed", "arguments": args, "call_id": "call_1", "name": "write_file"}
	usage := map[string]any{"input_tokens": 900, "output_tokens": 50_000, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens_details": map[string]any{"reasoning_tokens": 0}}
	evs = append(evs,
		map[string]any{"type": "response.function_call_arguments.done", "item_id": "fc_1", "output_index": 0, "arguments": args},
		map[string]any{"type": "response.output_item.done", "output_index": 0, "item": done},
		map[string]any{"type": "response.completed", "response": map[string]any{"id": "resp_1", "model": "gpt-5.1", "status": "completed",
			"output": []any{done}, "usage": usage}})
	answer, err := providertest.FileReply(filepath.Join(providerData, "openai-responses-2-answer.sse"))
	if err != nil {
		t.Fatal(err)
	}
	srv := providertest.NewReplyServer(providertest.Reply{Body: responsesSSE(evs...), Chunk: 4093}, answer)
	defer srv.Close()
	home, ws := t.TempDir(), t.TempDir()
	exoEnv(t, home, ws, []string{"KEY=test-key-1234567890"}, "secret", "set", "key", "--env", "KEY")
	if _, errs, code := exoEnv(t, home, ws, nil, "model", "register", "m", "--provider", "openai", "--model-id", "gpt-5.1",
		"--base-url", srv.URL, "--secret", "key"); code != 0 {
		t.Fatal(errs)
	}
	out, errs, code := exoEnv(t, home, ws, nil, "run", "--yes", "--json", "write big.txt")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	got, err := os.ReadFile(filepath.Join(ws, "big.txt"))
	if err != nil || string(got) != strings.Repeat("0123456789abcdef\n", 10_000) {
		t.Fatalf("big.txt: %d bytes (%v), want 170000", len(got), err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	var body struct {
		Input []struct {
			Type      string `json:"type"`
			Arguments string `json:"arguments"`
		} `json:"input"`
	}
	if err := json.Unmarshal(reqs[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, in := range body.Input {
		if in.Type == "function_call" {
			calls++
			if in.Arguments != args {
				t.Fatalf("the call sent back: %d bytes (valid JSON: %v), want the %d once", len(in.Arguments), json.Valid([]byte(in.Arguments)), len(args))
			}
		}
	}
	if calls != 1 {
		t.Fatalf("%d function calls sent back", calls)
	}
}
