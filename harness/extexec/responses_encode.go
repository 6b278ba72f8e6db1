package extexec

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"exo/harness/provider"
)

// responsesEncoder writes a provider's streamed answer as Responses server-sent events:
// response.created, then per output item response.output_item.added, its deltas and
// response.output_item.done, then response.completed with the usage.
type responsesEncoder struct {
	w       http.ResponseWriter
	fl      http.Flusher
	id      string
	model   string
	started bool
	seq     int
	item    map[string]any // the open item
	index   int
	text    string
	args    string
	output  []any
}

func newResponsesEncoder(w http.ResponseWriter, id, model string) *responsesEncoder {
	fl, _ := w.(http.Flusher)
	return &responsesEncoder{w: w, fl: fl, id: id, model: model, index: -1}
}

// event writes one event and flushes it.
func (e *responsesEncoder) event(name string, data map[string]any) {
	data["type"], data["sequence_number"] = name, e.seq
	e.seq++
	b, _ := json.Marshal(data)
	fmt.Fprintf(e.w, "event: %s\ndata: %s\n\n", name, b)
	if e.fl != nil {
		e.fl.Flush()
	}
}

// response is the response object at a status.
func (e *responsesEncoder) response(status string, usage any) map[string]any {
	out := e.output
	if out == nil {
		out = []any{}
	}
	return map[string]any{"id": e.id, "object": "response", "created_at": time.Now().Unix(), "status": status, "model": e.model, "output": out, "usage": usage}
}

// start writes the headers and response.created once.
func (e *responsesEncoder) start() {
	if e.started {
		return
	}
	e.started = true
	e.w.Header().Set("Content-Type", "text/event-stream")
	e.w.Header().Set("Cache-Control", "no-cache")
	e.w.WriteHeader(http.StatusOK)
	e.event("response.created", map[string]any{"response": e.response("in_progress", nil)})
	e.event("response.in_progress", map[string]any{"response": e.response("in_progress", nil)})
}

// open starts an output item, closing the open one.
func (e *responsesEncoder) open(item map[string]any) {
	e.close()
	e.index++
	e.item, e.text, e.args = item, "", ""
	e.event("response.output_item.added", map[string]any{"output_index": e.index, "item": item})
	if item["type"] == "message" {
		e.event("response.content_part.added", map[string]any{"item_id": item["id"], "output_index": e.index, "content_index": 0,
			"part": map[string]any{"type": "output_text", "annotations": []any{}, "text": ""}})
	}
}

// close ends the open item.
func (e *responsesEncoder) close() {
	it := e.item
	if it == nil {
		return
	}
	e.item = nil
	done := map[string]any{}
	for k, v := range it {
		done[k] = v
	}
	done["status"] = "completed"
	if it["type"] == "message" {
		part := map[string]any{"type": "output_text", "annotations": []any{}, "text": e.text}
		e.event("response.output_text.done", map[string]any{"item_id": it["id"], "output_index": e.index, "content_index": 0, "text": e.text})
		e.event("response.content_part.done", map[string]any{"item_id": it["id"], "output_index": e.index, "content_index": 0, "part": part})
		done["content"] = []any{part}
	} else {
		done["arguments"] = e.args
		e.event("response.function_call_arguments.done", map[string]any{"item_id": it["id"], "output_index": e.index, "arguments": e.args})
	}
	e.event("response.output_item.done", map[string]any{"output_index": e.index, "item": done})
	e.output = append(e.output, done)
}

// delta encodes one streamed piece.
func (e *responsesEncoder) delta(d provider.Delta) {
	e.start()
	switch d.Kind {
	case provider.DeltaText:
		if e.item == nil || e.item["type"] != "message" {
			e.open(map[string]any{"id": fmt.Sprintf("msg_exo_%s_%d", e.id, e.index+1), "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}})
		}
		e.text += d.Text
		e.event("response.output_text.delta", map[string]any{"item_id": e.item["id"], "output_index": e.index, "content_index": 0, "delta": d.Text})
	case provider.DeltaToolCall:
		e.open(map[string]any{"id": fmt.Sprintf("fc_exo_%s_%d", e.id, e.index+1), "type": "function_call", "status": "in_progress",
			"arguments": "", "call_id": d.ID, "name": d.Name})
	case provider.DeltaToolArgs:
		if e.item != nil && e.item["type"] == "function_call" {
			e.args += d.Text
			e.event("response.function_call_arguments.delta", map[string]any{"item_id": e.item["id"], "output_index": e.index, "delta": d.Text})
		}
	}
}

// finish closes the answer with its usage.
func (e *responsesEncoder) finish(resp provider.Response) {
	e.start()
	e.close()
	e.event("response.completed", map[string]any{"response": e.response("completed", map[string]any{
		"input_tokens": resp.Usage.Input, "input_tokens_details": map[string]any{"cached_tokens": resp.Usage.Cached},
		"output_tokens": resp.Usage.Output, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
		"total_tokens": resp.Usage.Input + resp.Usage.Output})})
}

// fail ends a started stream with response.failed.
func (e *responsesEncoder) fail(code, msg string) {
	e.close()
	r := e.response("failed", nil)
	r["error"] = map[string]any{"code": code, "message": msg}
	e.event("response.failed", map[string]any{"response": r})
}
