package store

import (
	"encoding/json"
	"testing"
	"time"
)

// FuzzDecodeEvent feeds arbitrary bytes to the event decoder: it must never panic, and
// whatever it accepts must re-encode to the same bytes.
func FuzzDecodeEvent(f *testing.F) {
	e := Event{Branch: "b", Seq: 7, Type: "tool.completed", Time: time.Unix(1700000000, 5).UTC(), Actor: "tool:bash", Data: json.RawMessage(`{"exit":0}`)}
	e.Hash = ComputeHash(Hash{}, &e)
	f.Add(encodeEvent(&e))
	f.Add([]byte{1})
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := DecodeEvent("b", b)
		if err != nil {
			return
		}
		if string(encodeEvent(&got)) != string(b) {
			t.Fatalf("decode/encode round trip differs")
		}
	})
}
