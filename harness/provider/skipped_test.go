package provider

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestUnknownOutputIsRecordedWithWhatItHeld streams, in each API, output of types exo does not
// know (a delta, an event, an item) between ordinary text: the answer is unchanged and every
// unknown piece is in Skipped with its content as received, never dropped silently.
func TestUnknownOutputIsRecordedWithWhatItHeld(t *testing.T) {
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	anthropic := ev("message_start", `{"type":"message_start","message":{"model":"claude-sonnet-4-5","usage":{"input_tokens":10,"output_tokens":1}}}`) +
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"emphasis_delta","span":[0,5]}}`) +
		ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"container_upload","file_id":"file_011"}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"not the answer"}}`) +
		ev("message_annotation", `{"type":"message_annotation","note":"kept"}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" world"}}`) +
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}`) +
		ev("message_stop", `{"type":"message_stop"}`)
	responses := ev("response.created", `{"type":"response.created","response":{"model":"gpt-5"}}`) +
		ev("response.output_item.added", `{"type":"response.output_item.added","output_index":0,"item":{"type":"image_generation_call","id":"ig_1","status":"in_progress"}}`) +
		ev("response.image_generation_call.partial_image", `{"type":"response.image_generation_call.partial_image","output_index":0,"partial_image_b64":"AAAA"}`) +
		ev("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"type":"image_generation_call","id":"ig_1","status":"completed","result":"iVBOR"}}`) +
		ev("response.output_item.added", `{"type":"response.output_item.added","output_index":1,"item":{"type":"message","id":"msg_1"}}`) +
		ev("response.output_text.delta", `{"type":"response.output_text.delta","output_index":1,"delta":"Hello world"}`) +
		ev("response.output_text.annotation.added", `{"type":"response.output_text.annotation.added","output_index":1,"annotation":{"type":"url_citation","url":"https://example.com/a"}}`) +
		ev("response.audio.transcript.delta", `{"type":"response.audio.transcript.delta","delta":"hi"}`) +
		ev("response.completed", `{"type":"response.completed","response":{"model":"gpt-5","status":"completed","usage":{"input_tokens":10,"output_tokens":5}}}`)
	for _, c := range []struct {
		name, body string
		p          func(string) Provider
		want       map[string]string // type → a piece of its content
	}{
		{"anthropic", anthropic, anthropicP, map[string]string{"emphasis_delta": `"span":[0,5]`,
			"container_upload": `"file_id":"file_011"}` + "\n" + `{"type":"text_delta","text":"not the answer"}`, "message_annotation": `"note":"kept"`}},
		{"responses", responses, responsesP, map[string]string{"image_generation_call": `"result":"iVBOR"`,
			"annotation": `"url":"https://example.com/a"`, "response.audio.transcript.delta": `"delta":"hi"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			api := newFakeAPI(t, reply{body: c.body})
			resp, err := c.p(api.srv.URL).Stream(context.Background(), testRequest("m"), nil)
			if err != nil {
				t.Fatal(err)
			}
			wantEq(t, "text", resp.Text, "Hello world")
			if len(resp.Skipped) != len(c.want) {
				t.Errorf("skipped %+v", resp.Skipped)
			}
			for _, sk := range resp.Skipped {
				if piece, ok := c.want[sk.Type]; !ok || sk.Count != 1 || !strings.Contains(sk.Content, piece) {
					t.Errorf("skipped %+v, want content with %q", sk, piece)
				}
			}
		})
	}
}

// TestSkippedContentIsBounded keeps only the first of a type's content, cut at the bound on a
// character boundary, and counts the rest.
func TestSkippedContentIsBounded(t *testing.T) {
	a := newAccumulator(nil)
	big := []byte(strings.Repeat("é", maxSkippedContent))
	i := a.skip("blob", big)
	a.skipMore(i, []byte("more"))
	if a.skip("blob", []byte("second")) != -1 {
		t.Error("a second block of the type got a record")
	}
	sk := a.skipped[0]
	if sk.Count != 2 || !utf8.ValidString(sk.Content) || len(sk.Content) > maxSkippedContent+len("…") || strings.Contains(sk.Content, "second") {
		t.Errorf("count %d, %d bytes, valid %v", sk.Count, len(sk.Content), utf8.ValidString(sk.Content))
	}
}

// TestSkippedReadsOldRecords decodes skipped lists recorded before contents were (bare type
// names) and after.
func TestSkippedReadsOldRecords(t *testing.T) {
	var got []Skipped
	if err := json.Unmarshal([]byte(`["server_tool_use",{"type":"citations_delta","count":7,"content":"{}"}]`), &got); err != nil {
		t.Fatal(err)
	}
	wantEq(t, "skipped", got, []Skipped{{Type: "server_tool_use", Count: 1}, {Type: "citations_delta", Count: 7, Content: "{}"}})
	if err := json.Unmarshal([]byte(`[42]`), &got); err == nil {
		t.Error("a number read as a skipped record")
	}
}
