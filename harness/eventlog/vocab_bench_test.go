package eventlog

import (
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"exo/store"
)

// plainEncoding is the version 1 encoding as builds before compression wrote every event.
func plainEncoding(e *store.Event) []byte {
	buf := []byte{1}
	buf = binary.AppendUvarint(buf, e.Seq)
	buf = binary.AppendVarint(buf, e.Time.UnixNano())
	for _, s := range []string{e.Type, e.Actor, string(e.Data)} {
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	return append(buf, e.Hash[:]...)
}

// BenchmarkDecodeEvent decodes a small event (a step's start) and a tool output of 2 KB, each
// stored as it is (version 1) and as the store stores it with exo's vocabulary (named, or
// compressed with its dictionary).
func BenchmarkDecodeEvent(b *testing.B) {
	codec := store.NewCodec(storeVocabulary)
	small := store.Event{Seq: 12, Type: "model.requested", Time: time.Unix(1700000000, 0), Actor: "executor:default", Data: json.RawMessage(`{"model":"claude-sonnet-4-5","provider":"anthropic","step":2,"prompt_tokens":5234,"messages":22}`)}
	large := store.Event{Seq: 13, Type: "tool.completed", Time: time.Unix(1700000000, 0), Actor: "tool:bash",
		Data: json.RawMessage(`{"call_id":"c1","tool":"bash","output":"` + strings.Repeat(`ok  \texo/store\t0.512s\n`, 90) + `","duration_ms":35}`)}
	for name, e := range map[string]*store.Event{"small": &small, "2KB": &large} {
		for _, v := range []string{"plain", "compressed"} {
			enc := codec.Encode(e)
			if v == "plain" {
				enc = plainEncoding(e)
			}
			b.Run(name+"/"+v, func(b *testing.B) {
				for b.Loop() {
					if _, err := codec.Decode("b", enc); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(enc)), "bytes")
			})
		}
	}
}
