package executor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/provider/providertest"
	"exo/sandbox"
)

// thinkingWithSecret is an Anthropic stream, shaped like the recorded ones, whose signed
// thinking block quotes a secret the model saw, split across two deltas, before a tool call.
func thinkingWithSecret(secret string) string {
	half := len(secret) / 2
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	return ev("message_start", `{"type":"message_start","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_01","type":"message","role":"assistant","content":[],"usage":{"input_tokens":424,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":5}}}`) +
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"The key in the file is `+secret[:half]+`"}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":`+jsonString(secret[half:]+"; I will not print it.")+`}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EtYDCkYICxgCKkAVHEWRYo6RgSMs4ZZDX4gW16kdfp2EIXftcLesVephGa"}}`) +
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`) +
		ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01","name":"list_dir","input":{}}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \".\"}"}}`) +
		ev("content_block_stop", `{"type":"content_block_stop","index":1}`) +
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":119}}`) +
		ev("message_stop", `{"type":"message_stop"}`)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestSecretInReasoningIsRedactedEverywhere seals a key, lets the model's thinking quote it, and
// checks the live reasoning, the recorded event and the next request carry ‹secret:NAME›, never
// the key; the thinking block, no longer verifiable by its signature, is not sent back, and
// thinking is turned off for the request that continues its tool loop.
func TestSecretInReasoningIsRedactedEverywhere(t *testing.T) {
	const secret = "sk-ant-test-5b1e0c9d7a3f4e28b6c1d0e9f8a7b6c5"
	answer, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "providers", "anthropic-2-answer.sse"))
	srv := providertest.NewReplyServer(providertest.Reply{Body: thinkingWithSecret(secret)}, providertest.Reply{Body: string(answer)})
	defer srv.Close()
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.SetSecret("anthropic", []byte(secret)); err != nil {
		t.Fatal(err)
	}
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "c", Provider: "anthropic", ModelID: "claude-sonnet-4-5", BaseURL: srv.URL, Secret: "anthropic"}); err != nil {
		t.Fatal(err)
	}
	s, err := h.NewSession(harness.NewSessionOptions{Name: "t", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	notices, stop := h.Subscribe(1024)
	defer stop()
	if _, err := New(h, Options{Headless: true, AutoApprove: true}).Prompt(context.Background(), s.ID, "list the files", "test"); err != nil {
		t.Fatal(err)
	}
	var live strings.Builder
	for done := false; !done; {
		select {
		case n := <-notices:
			live.WriteString(n.Reasoning)
		default:
			done = true
		}
	}
	if !strings.Contains(live.String(), "‹secret:anthropic›") || strings.Contains(live.String(), secret[:12]) {
		t.Errorf("live reasoning: %q", live.String())
	}
	evs, _ := h.BranchEvents(s.Branch, 0, 0)
	for _, e := range evs {
		if strings.Contains(string(e.Data), secret) {
			t.Errorf("event %d (%s) holds the secret", e.Seq, e.Type)
		}
		if e.Type == harness.TypeModelCompleted && strings.Contains(string(e.Data), "EtYDCkYICxgC") {
			t.Errorf("the signature of redacted thinking was kept: %s", e.Data)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	second := string(reqs[1].Body)
	if strings.Contains(second, secret) || strings.Contains(second, `"thinking"`) {
		t.Errorf("second request carries the secret or an unverifiable thinking block: %s", second)
	}
	if !strings.Contains(string(reqs[0].Body), `"thinking":{"budget_tokens":4096,"type":"enabled"}`) {
		t.Errorf("first request did not ask for thinking: %s", reqs[0].Body)
	}
}

// straddling is a search result block whose content the provider's bound on skipped content
// (8 KiB) cuts in the middle of secret.
func straddling(secret string) string {
	head := `{"type":"web_search_tool_result","tool_use_id":"srvtoolu_01","content":"`
	return head + strings.Repeat("x", 8<<10-len(head)-len(secret)/2) + secret + `"}`
}

// TestSecretInSkippedOutputIsRedacted lets a server tool's call and its results (output exo
// passes over) quote a sealed key, once where the provider's bound on what it keeps cuts the
// key in two: the recorded skipped content carries ‹secret:NAME›, and no event holds the key
// or a piece of it.
func TestSecretInSkippedOutputIsRedacted(t *testing.T) {
	const secret = "sk-ant-test-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	stream := ev("message_start", `{"type":"message_start","message":{"model":"claude-sonnet-4-5-20250929","usage":{"input_tokens":424,"output_tokens":5}}}`) +
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_01","name":"web_search","input":{}}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"query\": \"`+secret[:10]+`"}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"`+secret[10:]+`\"}"}}`) +
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`) +
		ev("content_block_start", `{"type":"content_block_start","index":2,"content_block":`+straddling(secret)+`}`) +
		ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Nothing found."}}`) +
		ev("content_block_stop", `{"type":"content_block_stop","index":1}`) +
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":30}}`) +
		ev("message_stop", `{"type":"message_stop"}`)
	srv := providertest.NewReplyServer(providertest.Reply{Body: stream})
	defer srv.Close()
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.SetSecret("anthropic", []byte(secret)); err != nil {
		t.Fatal(err)
	}
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "c", Provider: "anthropic", ModelID: "claude-sonnet-4-5", BaseURL: srv.URL, Secret: "anthropic", ThinkingBudget: harness.ThinkingOff}); err != nil {
		t.Fatal(err)
	}
	s, err := h.NewSession(harness.NewSessionOptions{Name: "t", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(h, Options{Headless: true, AutoApprove: true}).Prompt(context.Background(), s.ID, "search for my key", "test"); err != nil {
		t.Fatal(err)
	}
	evs, _ := h.BranchEvents(s.Branch, 0, 0)
	found := false
	for _, e := range evs {
		if strings.Contains(string(e.Data), secret) || strings.Contains(string(e.Data), secret[:10]) {
			t.Errorf("event %d (%s) holds the secret: %s", e.Seq, e.Type, e.Data)
		}
		if e.Type == harness.TypeModelCompleted {
			var c harness.ModelCompleted
			_ = json.Unmarshal(e.Data, &c)
			found = len(c.Skipped) == 2 && c.Skipped[0].Type == "server_tool_use" && strings.Contains(c.Skipped[0].Content, `{"query": "‹secret:anthropic›"}`) &&
				len(c.Skipped[1].Content) <= 2<<10+len("…")
		}
	}
	if !found {
		t.Error("the skipped call was not recorded with its query redacted")
	}
}
