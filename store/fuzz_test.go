package store

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// FuzzDecodeEvent feeds arbitrary bytes to the event decoder (every encoding: as it is, named
// and compressed; with the tests' vocabulary and with none): it must never panic, and whatever
// it accepts must re-encode to an event that decodes the same; a version 3 encoding that stays
// so re-encodes byte for byte.
func FuzzDecodeEvent(f *testing.F) {
	e := Event{Branch: "b", Seq: 7, Type: "tool.completed", Time: time.Unix(1700000000, 5).UTC(), Actor: "tool:bash", Data: json.RawMessage(`{"exit":0}`)}
	e.Hash = ComputeHash(Hash{}, &e)
	f.Add(encodeEvent(&e))
	big := e
	big.Data = json.RawMessage(`{"output":"` + strings.Repeat("ok  \\texo/store\\t0.5s\\n", 40) + `"}`)
	big.Hash = ComputeHash(e.Hash, &big)
	f.Add(encodeEvent(&big))
	f.Add([]byte{1})
	f.Add([]byte{2})
	f.Add([]byte{3, 7, 10, 3, 36, 2, 123, 125})
	f.Add([]byte{3, 7, 10, 0, 1, 120, 200, 2, 123, 125})
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{2, 7, 10, 0xff, 0xff, 0xff, 0xff, 0x0f, 3, 1, 2, 3})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, c := range []*Codec{testCodec, NewCodec(Vocabulary{})} {
			// Decoding into an arena (ScanRange) gives what Decode gives, or the same refusal.
			a := arena{b: make([]byte, 3, 8)}
			got, err := c.Decode("b", b)
			inArena, aerr := c.decode("b", b, &a)
			if (err == nil) != (aerr == nil) || (err == nil && (!sameEvent(got, inArena) || (got.Data == nil) != (inArena.Data == nil))) {
				t.Fatalf("decoded %+v (%v), into an arena %+v (%v)", got, err, inArena, aerr)
			}
			if err != nil {
				continue
			}
			again := c.Encode(&got)
			back, err := c.Decode("b", again)
			if err != nil || !sameEvent(got, back) {
				t.Fatalf("decode/encode/decode differs: %v", err)
			}
			if b[0] == encodingNamed && again[0] == encodingNamed && string(again) != string(b) {
				t.Fatalf("a version 3 encoding that stays version 3 did not round trip byte for byte")
			}
		}
	})
}

// sameEvent reports whether two events are equal field by field.
func sameEvent(a, b Event) bool {
	return a.Branch == b.Branch && a.Seq == b.Seq && a.Type == b.Type && a.Time.Equal(b.Time) &&
		a.Actor == b.Actor && string(a.Data) == string(b.Data) && a.Hash == b.Hash
}
