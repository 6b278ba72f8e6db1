package store

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
	"unicode/utf8"
)

// checkBranchEncoding fails unless encodeBranch writes what encoding/json writes for the same
// record, and decodeBranch reads it back as it was.
func checkBranchEncoding(t *testing.T, b Branch) {
	t.Helper()
	r := branchRecord{Branch: b}
	if b.inRecord {
		r.ForkHash = &b.forkHash
	}
	want, werr := json.Marshal(r)
	got, err := encodeBranch(b)
	if (err == nil) != (werr == nil) || !bytes.Equal(got, want) {
		t.Fatalf("encodeBranch %+v:\n got %s (%v)\nwant %s (%v)", b, got, err, want, werr)
	}
	if err != nil {
		return
	}
	back, err := decodeBranch([]byte(b.ID), got)
	if err != nil || (back.ID != b.ID && utf8.ValidString(b.ID)) || (back.Parent != b.Parent && utf8.ValidString(b.Parent)) || back.ForkSeq != b.ForkSeq ||
		!back.Created.Equal(b.Created) || back.inRecord != b.inRecord || (b.inRecord && back.forkHash != b.forkHash) {
		t.Fatalf("decode %s: %+v %v", got, back, err)
	}
}

// TestEncodeBranchMatchesJSON: the hand-written branch encoder writes encoding/json's bytes
// for roots and forks, with and without a head, names that need escaping, and times JSON
// cannot hold.
func TestEncodeBranchMatchesJSON(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 29, 5, 4, 3, 120000000, time.UTC)
	h := Hash{1, 2, 3, 0xff}
	for _, b := range []Branch{
		{ID: "root", Created: at},
		{ID: "root", Created: at, inRecord: true},
		{ID: "f-1", Parent: "root", ForkSeq: 42, Created: at, forkHash: h, inRecord: true},
		{ID: "f-1", Parent: "root", Created: at, inRecord: true},
		{ID: `a"b\c<d>&e`, Parent: "é\u2028\x01\x7f", ForkSeq: 1<<64 - 1, Created: at, forkHash: h, inRecord: true},
		{ID: "zone", Created: at.In(time.FixedZone("x", 3600)), inRecord: true},
		{ID: "far", Created: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), inRecord: true},
		{ID: "zero", inRecord: true},
		{ID: "\xff", Created: at, inRecord: true},
	} {
		checkBranchEncoding(t, b)
	}
}

// FuzzEncodeBranch holds encodeBranch equal to encoding/json on any names, seq, time and hash.
func FuzzEncodeBranch(f *testing.F) {
	f.Add("root", "", uint64(0), int64(0), []byte{}, true)
	f.Add("f<1>", "p\"q", uint64(7), int64(1<<40), []byte{1, 2, 3}, false)
	f.Fuzz(func(t *testing.T, id, parent string, seq uint64, nanos int64, hash []byte, inRecord bool) {
		var h Hash
		copy(h[:], hash)
		checkBranchEncoding(t, Branch{ID: id, Parent: parent, ForkSeq: seq, Created: time.Unix(0, nanos).UTC(), forkHash: h, inRecord: inRecord})
	})
}

// TestEncodeBranchOneAllocation: a branch record, at its longest (every field, the largest
// seq, a time with nanoseconds), is encoded into one buffer sized for it up front.
func TestEncodeBranchOneAllocation(t *testing.T) {
	b := Branch{ID: "0000000a1b2c3d4e.12", Parent: "0000000a1b2c3d4e", ForkSeq: 1<<64 - 1,
		Created: time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), forkHash: Hash{1}, inRecord: true}
	if n := testing.AllocsPerRun(100, func() {
		if _, err := encodeBranch(b); err != nil {
			t.Fatal(err)
		}
	}); n != 1 {
		t.Fatalf("encodeBranch allocates %v times, want 1", n)
	}
}
