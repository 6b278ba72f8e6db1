package provider

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"exo/harness/provider/providertest"
)

// recordedChatChunks returns the data of every Chat Completions event in the recorded
// cassettes and fixtures ([DONE] left out), as live services sent them.
func recordedChatChunks(t testing.TB) [][]byte {
	var out [][]byte
	for _, stream := range recordedChatStreams(t) {
		out = append(out, stream...)
	}
	if len(out) < 500 {
		t.Fatalf("only %d recorded chat chunks", len(out))
	}
	return out
}

// recordedChatStreams returns recordedChatChunks stream by stream, in the order sent.
func recordedChatStreams(t testing.TB) [][][]byte {
	var bodies []string
	for _, c := range loadCassettes(t) {
		if c.Wire() != providertest.WireChat {
			continue
		}
		for _, r := range c.Replies(0) {
			bodies = append(bodies, r.Body)
		}
	}
	for _, f := range []string{"chat-1-tool.sse", "chat-2-answer.sse", "chat-finish-error.sse", "chat-openrouter-error.sse",
		"chat-malformed.sse", "deepseek-1-tool.reconstructed.sse", "vllm-1-tool.reconstructed.sse"} {
		bodies = append(bodies, fixture(t, f))
	}
	var out [][][]byte
	for _, body := range bodies {
		var stream [][]byte
		r := NewSSEReader(strings.NewReader(body))
		for r.Next() {
			if !bytes.HasPrefix(r.Data(), []byte("[DONE]")) {
				stream = append(stream, bytes.Clone(r.Data()))
			}
		}
		out = append(out, stream)
	}
	return out
}

// sameAsUnmarshal fails unless decodeChatChunk gives what json.Unmarshal gives for data: the
// same chunk, and an error exactly when it fails, with its message.
func sameAsUnmarshal(t *testing.T, data []byte) {
	t.Helper()
	var want, got chatChunk
	werr := json.Unmarshal(data, &want)
	gerr := decodeChatChunk(data, &got)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%q: json.Unmarshal says %v, decodeChatChunk %v", data, werr, gerr)
	}
	if werr != nil && gerr.Detail != trim(werr.Error()) {
		t.Fatalf("%q: error %q, want %q", data, gerr.Detail, trim(werr.Error()))
	}
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("%q:\n got %#v\nwant %#v", data, got, want)
	}
	// The same into room a chunk before used: nothing of that one may show.
	room := []chatChoice{{Index: 7, FinishReason: "stale", Delta: chatDelta{Content: "stale"}}, {Index: 8}}
	var again chatChunk
	if err := decodeChatChunkInto(data, &again, room); (err == nil) != (werr == nil) || !reflect.DeepEqual(want, again) {
		t.Fatalf("%q with room reused:\n got %#v\nwant %#v", data, again, want)
	}
}

// TestChatChunkDecoderMatchesUnmarshal holds the decoder to json.Unmarshal on every recorded
// chunk and on hand-made inputs at each edge of its fast path.
func TestChatChunkDecoderMatchesUnmarshal(t *testing.T) {
	t.Parallel()
	chunks := recordedChatChunks(t)
	fast := 0
	for _, data := range chunks {
		sameAsUnmarshal(t, data)
		var c chatChunk
		if (&chatDecoder{b: data}).chunk(&c) {
			fast++
		}
	}
	// Most recorded chunks are text deltas: they must take the fast path, or it is worth nothing.
	if fast*2 < len(chunks) {
		t.Fatalf("only %d of %d recorded chunks decoded without encoding/json", fast, len(chunks))
	}
	for _, s := range edgeChunks {
		sameAsUnmarshal(t, []byte(s))
	}
}

// edgeChunks are inputs at the edges of the fast path: each must decode as json.Unmarshal does.
var edgeChunks = []string{
	`{"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`,
	`{"model":"m","choices":[{"index":0,"delta":{"content":"a\"b\u00e9\ud83d\ude00"},"finish_reason":null}]}`,
	`{"model":"m","choices":[{"index":0,"delta":{"content":"\ud800"}}]}`,
	"{\"choices\":[{\"delta\":{\"content\":\"\xff\xfe\"}}]}",
	"{\"choices\":[{\"delta\":{\"content\":\"a\x01\"}}]}",
	`{"Model":"m","choices":[]}`,
	`{"MODEL":"m","model":"n"}`,
	`{"model":"m","model":"n"}`,
	`{"model":"m","choices":[{"index":0},{"index":1}],"choices":[{"index":2}]}`,
	"{\"ſodel\":\"m\"}",
	"{\"choıces\":[]}",
	`{"choices":[{"index":1.5}]}`,
	`{"choices":[{"index":1e3}]}`,
	`{"choices":[{"index":-0}]}`,
	`{"choices":[{"index":01}]}`,
	`{"choices":[{"index":99999999999999999999}]}`,
	`{"choices":[{"index":"0"}]}`,
	`{"choices":[{"index":null,"delta":null,"finish_reason":null}]}`,
	`{"choices":[null]}`,
	`{"choices":null}`,
	`{"choices":{}}`,
	`{"model":5}`,
	`{"model":null}`,
	`{"usage":null,"choices":[]}`,
	`{"usage":{"prompt_tokens":3,"completion_tokens":4}}`,
	`{"error":null}`,
	`{"error":"bad"}`,
	`{"choices":[{"delta":{"reasoning_content":null,"content":"x"}}]}`,
	`{"choices":[{"delta":{"reasoning_content":"think"}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{}"}}]}}]}`,
	`{"choices":[{"delta":{"role":"assistant","content":""},"logprobs":{"content":[{"token":"a","logprob":-0.1,"bytes":[97]}]}}]}`,
	`{"x":[1,2,{"y":[true,false,null,-1.5e+3,"s\/\b\f\n\r\t"]}],"model":"m"}`,
	`{"x":tru}`, `{"x":nul}`, `{"x":-}`, `{"x":1.}`, `{"x":1e}`, `{"x":"\x"}`, `{"x":"\u12"}`,
	`{"model":"m"} `, `{"model":"m"} x`, `{"model":"m"}{}`, ` {"model":"m"}`, `null`, `[]`, `"s"`, ``, `{`, `{"model"`,
	`{"model":"m",}`, `{,"model":"m"}`, `{"choices":[{"index":0},]}`, `{"choices":[{"index":0}`,
	`{"model":"m"` + strings.Repeat(`,"x":[`, 70) + strings.Repeat(`]`, 70) + `}`,
	"{\"model\"\t:\r\n\"m\" , \"choices\" : [ { \"index\" : 0 , \"delta\" : { \"content\" : \"a\" } } ] }",
	`{"choices":[{"finish_reason":"stop","finish_reason":null}]}`,
	`{"choices":[{"delta":{"content":"a","Content":"b"}}]}`,
	`{"choices":[{"delta":{"content":"a","content":"b"}}]}`,
}

// FuzzChatChunkDecoder holds decodeChatChunk to json.Unmarshal on any input: the same chunk,
// and the same error, valid JSON or not.
func FuzzChatChunkDecoder(f *testing.F) {
	for i, data := range recordedChatChunks(f) {
		if i%16 == 0 { // every recorded shape is in the first few hundred; more only slows the start
			f.Add(data)
		}
	}
	for _, s := range edgeChunks {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameAsUnmarshal(t, data) })
}

// BenchmarkChatChunkDecode decodes every recorded Chat Completions chunk and the text delta
// `exo run` streams most, through json.Unmarshal (the decoder before) and decodeChatChunk.
func BenchmarkChatChunkDecode(b *testing.B) {
	recorded := recordedChatChunks(b)
	delta := []byte(`{"id":"chatcmpl-x","object":"chat.completion.chunk","created":1763776800,"model":"fake-model","system_fingerprint":"fp_fake","choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}],"usage":null}`)
	for _, set := range []struct {
		name   string
		chunks [][]byte
	}{{"recorded", recorded}, {"delta", [][]byte{delta}}} {
		b.Run(set.name+"/unmarshal", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for _, data := range set.chunks {
					var c chatChunk
					_ = json.Unmarshal(data, &c)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(set.chunks)), "ns/chunk")
		})
		b.Run(set.name+"/fast", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for _, data := range set.chunks {
					var c chatChunk
					_ = decodeChatChunk(data, &c)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(set.chunks)), "ns/chunk")
		})
		b.Run(set.name+"/template", func(b *testing.B) { // as a stream decodes them: each after the one before
			b.ReportAllocs()
			var tm chatTemplate
			var room []chatChoice
			for i := 0; i < b.N; i++ {
				for _, data := range set.chunks {
					var c chatChunk
					_ = tm.decode(data, &c, room)
					room = c.Choices
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(set.chunks)), "ns/chunk")
		})
	}
}
