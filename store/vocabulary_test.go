package store

import (
	"errors"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// vocabRecords are events that use testVocab: names by place, names spelled out, and payloads
// large enough to be compressed with its dictionary.
func vocabRecords() []Record {
	out := []Record{rec(1), {Type: "tool.completed", Actor: "tool:bash", Data: []byte(`{"exit":0}`)}, {Type: "not.named", Actor: "nobody", Data: []byte(`{}`)}}
	long := strings.Repeat(`ok  \texo/store\t0.512s\n--- PASS: TestAppend (0.01s)\n`, 20)
	out = append(out, Record{Type: "tool.completed", Actor: "tool:bash", Data: []byte(`{"call_id":"c1","tool":"bash","output":"` + long + `"}`)})
	return out
}

// confVocabulary checks that a database is opened only with the vocabulary its events were
// stored with, or one that extends it: another (fewer names, other names, another dictionary,
// none) is refused with ErrVocabulary, and never reads different events.
func confVocabulary(t *testing.T, be backend) {
	s := be.open(t)
	s.Close()
	// A database written with no vocabulary takes one: no stored event refers to it yet.
	s, err := be.openAgain(t, s, Options{Vocabulary: testVocab})
	if err != nil {
		t.Fatalf("open with a vocabulary where there was none: %v", err)
	}
	if _, err := s.NewBranch("m"); err != nil {
		t.Fatal(err)
	}
	want, err := s.Append("m", vocabRecords()...)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	reordered := testVocab
	reordered.Names = slices.Clone(testVocab.Names)
	reordered.Names[2], reordered.Names[3] = reordered.Names[3], reordered.Names[2]
	otherDict := testVocab
	otherDict.Dict = append([]byte("x"), testVocab.Dict...)
	otherID := testVocab
	otherID.DictID++
	shorter := testVocab
	shorter.Names = testVocab.Names[:10]
	for name, v := range map[string]Vocabulary{"none": {}, "reordered": reordered, "other dictionary": otherDict,
		"other dictionary id": otherID, "fewer names": shorter} {
		if s2, err := be.openAgain(t, s, Options{Vocabulary: v}); !errors.Is(err, ErrVocabulary) {
			if err == nil {
				s2.Close()
			}
			t.Fatalf("open with %s: %v, want ErrVocabulary", name, err)
		}
	}
	longer := testVocab
	longer.Names = append(slices.Clone(testVocab.Names), "new.type")
	s, err = be.openAgain(t, s, Options{Vocabulary: longer})
	if err != nil {
		t.Fatalf("open with a longer vocabulary: %v", err)
	}
	got, err := s.ReadRange("m", 1, 100)
	if err != nil || len(got) != len(want) {
		t.Fatalf("read: %d events, %v", len(got), err)
	}
	for i := range want {
		if !sameEvent(got[i], want[i]) {
			t.Fatalf("event %d reads %+v, was %+v", i+1, got[i], want[i])
		}
	}
	if _, err := s.Append("m", Record{Type: "new.type", Actor: "user", Data: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// The database now names the longer vocabulary: the shorter one would not know its events.
	if s2, err := be.openAgain(t, s, Options{Vocabulary: testVocab}); !errors.Is(err, ErrVocabulary) || !strings.Contains(err.Error(), "41 names") {
		if err == nil {
			s2.Close()
		}
		t.Fatalf("open with the vocabulary before it grew: %v, want ErrVocabulary naming 41 names", err)
	}
	s, err = be.openAgain(t, s, Options{Vocabulary: longer})
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := s.VerifyAll(); err != nil || !rep.OK() || rep.Events != len(want)+1 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
}

// TestVocabularyLegacy opens a database written before databases recorded their vocabulary:
// only a vocabulary that starts with the one the store held then opens it.
func TestVocabularyLegacy(t *testing.T) {
	home := t.TempDir()
	s, err := Open(home, Options{Vocabulary: testVocab})
	if err != nil {
		t.Fatal(err)
	}
	s.NewBranch("m")
	if _, err := s.Append("m", vocabRecords()...); err != nil {
		t.Fatal(err)
	}
	rawPut(t, s, metaVocabularyKey, nil, pathMeta)
	s.Close()
	for name, v := range map[string]Vocabulary{"none": {}, "the test's": testVocab} {
		_, err := Open(home, Options{Vocabulary: v})
		if !errors.Is(err, ErrVocabulary) || !strings.Contains(err.Error(), "53 names") {
			t.Fatalf("open with %s vocabulary: %v, want ErrVocabulary naming the 53 names", name, err)
		}
	}
}

// TestVocabularyRecordOnce checks that a database already naming the vocabulary it is opened
// with is not written by the opening, and that a damaged record is refused as corruption.
func TestVocabularyRecordOnce(t *testing.T) {
	home := t.TempDir()
	s, err := Open(home, Options{Vocabulary: testVocab})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	txid := func() int {
		db, err := bolt.Open(home+"/"+DBName, 0o600, &bolt.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		tx, err := db.Begin(false)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		return tx.ID()
	}
	before := txid()
	s, err = Open(home, Options{Vocabulary: testVocab})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if after := txid(); after != before {
		t.Fatalf("opening wrote the database: transaction %d, was %d", after, before)
	}
	rec := testVocab.record()
	if got, err := decodeVocabRecord(rec.encode()); err != nil || got != rec {
		t.Fatalf("record round trip: %+v %v", got, err)
	}
	enc := rec.encode()
	for n := range len(enc) {
		if _, err := decodeVocabRecord(enc[:n]); err == nil {
			t.Fatalf("a record cut at %d decoded", n)
		}
	}
	s, err = Open(home, Options{Vocabulary: testVocab})
	if err != nil {
		t.Fatal(err)
	}
	rawPut(t, s, metaVocabularyKey, enc[:len(enc)-1], pathMeta)
	s.Close()
	if _, err := Open(home, Options{Vocabulary: testVocab}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("open with a damaged vocabulary record: %v, want ErrCorrupt", err)
	}
}
