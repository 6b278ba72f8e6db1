package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// plainEncoding is the version 1 encoding as builds before compression wrote every event.
func plainEncoding(e *Event) []byte {
	buf := []byte{encodingVersion}
	buf = binary.AppendUvarint(buf, e.Seq)
	buf = binary.AppendVarint(buf, e.Time.UnixNano())
	buf = appendString(buf, e.Type)
	buf = appendString(buf, e.Actor)
	buf = appendString(buf, string(e.Data))
	return append(buf, e.Hash[:]...)
}

// TestEventCompression stores a large payload compressed and a tiny one as it is; both decode
// to the event that was hashed, and an event written plain by an older build still decodes.
func TestEventCompression(t *testing.T) {
	out := strings.Repeat(`ok  \texo/store\t0.512s\n--- PASS: TestAppend (0.01s)\n`, 50)
	big := Event{Branch: "b", Seq: 9, Type: "tool.completed", Time: time.Unix(1700000000, 7).UTC(), Actor: "tool:bash",
		Data: json.RawMessage(`{"call_id":"c1","tool":"bash","output":"` + out + `"}`)}
	big.Hash = ComputeHash(Hash{1}, &big)
	enc := encodeEvent(&big)
	if enc[0] != encodingCompressed || len(enc) > len(big.Data)/5 {
		t.Fatalf("a %d-byte payload stored as version %d in %d bytes", len(big.Data), enc[0], len(enc))
	}
	small := Event{Branch: "b", Seq: 10, Type: "x", Time: time.Unix(1, 0).UTC(), Actor: "u", Data: json.RawMessage(`{}`)}
	small.Hash = ComputeHash(big.Hash, &small)
	for _, c := range []struct {
		e   Event
		enc []byte
	}{{big, enc}, {small, encodeEvent(&small)}, {big, plainEncoding(&big)}, {small, plainEncoding(&small)}} {
		got, err := decodeEvent("b", c.enc)
		if err != nil || !sameEvent(got, c.e) {
			t.Fatalf("version %d: %+v %v", c.enc[0], got, err)
		}
		prev := Hash{1}
		if c.e.Seq == 10 {
			prev = big.Hash
		}
		if ComputeHash(prev, &got) != c.e.Hash {
			t.Fatal("the decoded event does not hash to its hash")
		}
	}
}

// TestCompressedEventDamage damages a compressed event every way a disk or an attacker could:
// each read fails with an error, none panics, none allocates what a damaged length claims.
func TestCompressedEventDamage(t *testing.T) {
	e := Event{Branch: "b", Seq: 3, Type: "model.completed", Time: time.Unix(1700000000, 0).UTC(), Actor: "executor:default",
		Data: json.RawMessage(`{"text":"` + strings.Repeat("the slow path was made faster step by step. ", 30) + `"}`)}
	enc := encodeEvent(&e)
	if enc[0] != encodingCompressed {
		t.Fatal("not compressed")
	}
	for i := 1; i < len(enc)-len(e.Hash); i++ {
		for _, flip := range []byte{0x01, 0x80, 0xff} {
			d := bytes.Clone(enc)
			d[i] ^= flip
			if got, err := decodeEvent("b", d); err == nil && sameEvent(got, e) {
				t.Fatalf("byte %d ^ %#x: the damage went unnoticed", i, flip)
			}
		}
	}
	for n := range len(enc) {
		if _, err := decodeEvent("b", enc[:n]); err == nil {
			t.Fatalf("cut at %d decoded", n)
		}
	}
	// A size that claims a gigabyte is refused before anything is allocated for it.
	r := reader{b: enc[1:]}
	r.uvarint()
	r.varint()
	at := len(enc) - len(r.b)
	r.uvarint() // the true size
	rest := enc[len(enc)-len(r.b):]
	claim := append(append(bytes.Clone(enc[:at]), binary.AppendUvarint(nil, 1<<30)...), rest...)
	if _, err := decodeEvent("b", claim); err == nil || !strings.Contains(err.Error(), "claims") {
		t.Fatalf("a 1 GiB claim: %v", err)
	}
}
