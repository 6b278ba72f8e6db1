package provider

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// templateSameAsUnmarshal decodes data through t (holding what the chunks before left in it)
// and fails unless the result is json.Unmarshal's, error included. It reports whether the
// template's short path decoded it.
func templateSameAsUnmarshal(tb testing.TB, t *chatTemplate, data []byte) bool {
	tb.Helper()
	var want, got chatChunk
	werr := json.Unmarshal(data, &want)
	_, short := t.match(data)
	room := []chatChoice{{Index: 7, FinishReason: "stale", Delta: chatDelta{Content: "stale", Refusal: "stale"}}}
	gerr := t.decode(data, &got, room)
	if (werr == nil) != (gerr == nil) {
		tb.Fatalf("%q: json.Unmarshal says %v, the template %v", data, werr, gerr)
	}
	if werr != nil && gerr.Detail != trim(werr.Error()) {
		tb.Fatalf("%q: error %q, want %q", data, gerr.Detail, trim(werr.Error()))
	}
	if !reflect.DeepEqual(want, got) {
		tb.Fatalf("%q (short path %v):\n got %#v\nwant %#v", data, short, got, want)
	}
	return short
}

// TestChatTemplateMatchesUnmarshal decodes every recorded stream through one template, chunk
// after chunk as a stream does: each chunk must come out as json.Unmarshal gives it, and most
// chunks after a text delta (the ones not ending a text, or carrying content filter results)
// must take the short path, OpenAI's ones with their random "obfuscation" among them.
func TestChatTemplateMatchesUnmarshal(t *testing.T) {
	t.Parallel()
	short, after := 0, 0
	for _, stream := range recordedChatStreams(t) {
		var tm chatTemplate
		for _, data := range stream {
			if tm.ok {
				after++
			}
			if templateSameAsUnmarshal(t, &tm, data) {
				short++
			}
		}
	}
	if short*4 < after*3 {
		t.Fatalf("only %d of %d recorded chunks after a text delta took the template's short path", short, after)
	}
}

// TestChatTemplateHostileText sends, after a text delta, chunks with the same bytes around a
// text that is not a plain string, or around more than a string, and chunks whose bytes around
// differ in one place: each must decode as json.Unmarshal does.
func TestChatTemplateHostileText(t *testing.T) {
	t.Parallel()
	const pre, post = `{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"`, `"},"finish_reason":null}],"usage":null,"obfuscation":"x"}`
	base := pre + "a" + post
	seconds := []string{
		pre + "b" + post,
		pre + "é😀" + post,
		pre + "" + post,
		pre + `a\"b` + post,
		pre + `a\` + post,
		pre + `\u0041` + post,
		pre + "a\x01" + post,
		pre + "a\n" + post,
		pre + "\xff\xfe" + post,
		pre + "\xe2\x82" + post,
		pre + `a","content":"b` + post,
		pre + `a"},"finish_reason":"stop"}],"x":{"y":"` + post,
		pre + `a"}}],"usage":{"prompt_tokens":3},"z":{"w":"` + post,
		pre + `"` + post,
		pre + "b" + post[:len(post)-1],
		pre + "b" + post + " ",
		`{"id":"c\u0041","model":"m","choices":[{"index":0,"delta":{"content":"b` + post,
		`{"id":"c\","model":"m","choices":[{"index":0,"delta":{"content":"b` + post,
		`{"id":"c\x","model":"m","choices":[{"index":0,"delta":{"content":"b` + post,
		`{"id":"c\u00","model":"m","choices":[{"index":0,"delta":{"content":"b` + post,
		"{\"id\":\"c\x01\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b" + post,
		"{\"id\":\"\xff\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b" + post,
		`{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"b` + post,
		`{"id":"c","x":"y","model":"m","choices":[{"index":0,"delta":{"content":"b` + post,
		`{"id":"","model":"m","choices":[{"index":0,"delta":{"content":"b` + post,
		`{"id":"c","model":"m\u0041","choices":[{"index":0,"delta":{"content":"b` + post,
		pre + "b" + `"},"finish_reason":"stop"}],"usage":null}`,
		strings.Replace(pre, `"m"`, `"n"`, 1) + "b" + post,
		strings.Replace(pre, `"index":0`, `"index":1`, 1) + "b" + post,
		`{"error":"x","id":"c","model":"m","choices":[{"index":0,"delta":{"content":"b` + post,
	}
	for _, second := range seconds {
		var tm chatTemplate
		if templateSameAsUnmarshal(t, &tm, []byte(base)); !tm.ok {
			t.Fatalf("a plain text delta made no template")
		}
		templateSameAsUnmarshal(t, &tm, []byte(second))
		// And the chunk after it, back to the shape of the first.
		templateSameAsUnmarshal(t, &tm, []byte(pre+"c"+post))
	}
	// Chunks that must not become templates: their values are not copied, they are decoded.
	for _, c := range []string{
		`{"model":"m","choices":[{"index":0,"delta":{"content":"a","reasoning_content":"r"}}]}`,
		`{"model":"m","choices":[{"index":0,"delta":{"content":"a","tool_calls":[{"index":0,"id":"i","function":{"name":"f","arguments":""}}]}}]}`,
		`{"model":"m","choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{"content":"b"}}]}`,
		`{"model":"m","choices":[{"index":0,"delta":{"content":"a\n"}}]}`,
		`{"model":"m","choices":[{"index":0,"delta":{"content":null}}]}`,
	} {
		var tm chatTemplate
		templateSameAsUnmarshal(t, &tm, []byte(c))
		if tm.ok {
			t.Fatalf("%s made a template", c)
		}
	}
}

// FuzzChatTemplate holds a template made from one chunk to json.Unmarshal on the next.
func FuzzChatTemplate(f *testing.F) {
	const pre, post = `{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"`, `"},"finish_reason":null}],"usage":null}`
	f.Add([]byte(pre+"a"+post), []byte(pre+"b"+post))
	f.Add([]byte(pre+"a"+post), []byte(pre+`b","content":"c`+post))
	f.Add([]byte(pre+"a"+post), []byte(pre+"\\"+post))
	for _, stream := range recordedChatStreams(f) {
		for i := 1; i < len(stream); i += 8 {
			f.Add(stream[i-1], stream[i])
		}
	}
	f.Fuzz(func(t *testing.T, first, second []byte) {
		var tm chatTemplate
		templateSameAsUnmarshal(t, &tm, first)
		templateSameAsUnmarshal(t, &tm, second)
		templateSameAsUnmarshal(t, &tm, first)
	})
}
