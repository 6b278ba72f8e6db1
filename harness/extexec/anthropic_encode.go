package extexec

import (
	"encoding/json"
	"fmt"
	"net/http"

	"exo/harness/provider"
)

// anthropicEncoder writes a provider's streamed answer as Messages server-sent events:
// message_start, each block's content_block_start, deltas and content_block_stop, then
// message_delta with the stop reason and usage, and message_stop.
type anthropicEncoder struct {
	w       http.ResponseWriter
	fl      http.Flusher
	id      string
	model   string
	req     *anthropicRequest
	started bool
	// whole answers with one JSON message instead of a stream (a request without stream).
	whole bool
	block int    // index of the open block, -1 when none
	kind  string // text or tool_use
	next  int
}

func newAnthropicEncoder(w http.ResponseWriter, id, model string, req *anthropicRequest) *anthropicEncoder {
	fl, _ := w.(http.Flusher)
	return &anthropicEncoder{w: w, fl: fl, id: id, model: model, req: req, block: -1}
}

// event writes one event and flushes it.
func (a *anthropicEncoder) event(name string, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(a.w, "event: %s\ndata: %s\n\n", name, b)
	if a.fl != nil {
		a.fl.Flush()
	}
}

// start writes the headers and message_start once.
func (a *anthropicEncoder) start() {
	if a.started {
		return
	}
	a.started = true
	a.w.Header().Set("Content-Type", "text/event-stream")
	a.w.Header().Set("Cache-Control", "no-cache")
	a.w.WriteHeader(http.StatusOK)
	a.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": a.id, "type": "message",
		"role": "assistant", "content": []any{}, "model": a.model, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 0, "output_tokens": 0}}})
}

// open starts a block of kind, closing the open one.
func (a *anthropicEncoder) open(kind string, block map[string]any) {
	a.close()
	a.block, a.kind = a.next, kind
	a.next++
	a.event("content_block_start", map[string]any{"type": "content_block_start", "index": a.block, "content_block": block})
}

// close ends the open block.
func (a *anthropicEncoder) close() {
	if a.block >= 0 {
		a.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": a.block})
		a.block = -1
	}
}

// delta encodes one streamed piece.
func (a *anthropicEncoder) delta(d provider.Delta) {
	a.start()
	switch d.Kind {
	case provider.DeltaText:
		if a.kind != "text" || a.block < 0 {
			a.open("text", map[string]any{"type": "text", "text": ""})
		}
		a.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": a.block,
			"delta": map[string]any{"type": "text_delta", "text": d.Text}})
	case provider.DeltaToolCall:
		a.open("tool_use", map[string]any{"type": "tool_use", "id": d.ID, "name": a.req.offered(d.Name), "input": map[string]any{}})
	case provider.DeltaToolArgs:
		if a.kind == "tool_use" && a.block >= 0 {
			a.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": a.block,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": d.Text}})
		}
	}
}

// finish closes the answer with its stop reason and usage.
func (a *anthropicEncoder) finish(resp provider.Response) {
	if a.whole {
		a.message(resp)
		return
	}
	a.start()
	a.close()
	stop := string(resp.StopReason)
	if len(resp.ToolCalls) > 0 {
		stop = "tool_use"
	}
	if stop == "" {
		stop = "end_turn"
	}
	in := resp.Usage.Input - resp.Usage.Cached - resp.Usage.CacheWrite
	a.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"input_tokens": max(in, 0), "cache_read_input_tokens": resp.Usage.Cached,
			"cache_creation_input_tokens": resp.Usage.CacheWrite, "output_tokens": resp.Usage.Output}})
	a.event("message_stop", map[string]any{"type": "message_stop"})
}

// message writes the whole answer as one Messages response.
func (a *anthropicEncoder) message(resp provider.Response) {
	var content []map[string]any
	if resp.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": resp.Text})
	}
	stop := string(resp.StopReason)
	for _, c := range resp.ToolCalls {
		content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": a.req.offered(c.Name), "input": rawJSON(c.Arguments)})
		stop = "tool_use"
	}
	if stop == "" {
		stop = "end_turn"
	}
	a.started = true
	a.w.Header().Set("Content-Type", "application/json")
	a.w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(a.w).Encode(map[string]any{"id": a.id, "type": "message", "role": "assistant", "model": a.model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": max(resp.Usage.Input-resp.Usage.Cached-resp.Usage.CacheWrite, 0),
			"cache_read_input_tokens": resp.Usage.Cached, "output_tokens": resp.Usage.Output}})
}
