package eventlog

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"exo/store"
)

// oldStore copies the exo.db written by the store of 1a3b496 (when the store held exo's
// vocabulary itself) into a fresh home, and returns the home and the events it holds.
func oldStore(t *testing.T) (string, []store.Event) {
	t.Helper()
	dir := filepath.Join("testdata", "store-1a3b496")
	gz, err := os.ReadFile(filepath.Join(dir, "exo.db.gz"))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	var db bytes.Buffer
	if _, err := db.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, store.DBName), db.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "events.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want []store.Event
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	return home, want
}

// TestStoreVocabularyReadsOldDatabase opens a database written before the store took its
// vocabulary from the harness: every event (in both encodings that refer to the vocabulary)
// reads the same, byte for byte, and hashes the same; opening it writes nothing.
func TestStoreVocabularyReadsOldDatabase(t *testing.T) {
	home, want := oldStore(t)
	path := filepath.Join(home, store.DBName)
	before, _ := os.ReadFile(path)
	s, err := store.Open(home, store.Options{Vocabulary: storeVocabulary})
	if err != nil {
		t.Fatalf("open the old database: %v", err)
	}
	var got []store.Event
	for _, br := range []string{"main", "side"} {
		evs, err := s.ReadRange(br, 1, 100)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, evs...)
	}
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		var data bytes.Buffer
		if err := json.Compact(&data, w.Data); err != nil {
			t.Fatal(err)
		}
		if g.Branch != w.Branch || g.Seq != w.Seq || g.Type != w.Type || g.Actor != w.Actor || !g.Time.Equal(w.Time) ||
			g.Hash != w.Hash || !bytes.Equal(g.Data, data.Bytes()) {
			t.Fatalf("event %d reads\n%+v\nwant\n%+v", i, g, w)
		}
	}
	if rep, err := s.VerifyAll(); err != nil || !rep.OK() || rep.Events != 13 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Fatal("opening and reading the old database changed it")
	}
}

// TestStoreVocabularyRefusesOthers opens the old database without exo's vocabulary, and with
// one whose names or dictionary differ: each is refused, naming the vocabulary, none reads.
func TestStoreVocabularyRefusesOthers(t *testing.T) {
	home, _ := oldStore(t)
	swapped := storeVocabulary
	swapped.Names = slices.Clone(storeNames)
	swapped.Names[0], swapped.Names[1] = swapped.Names[1], swapped.Names[0]
	noDict := storeVocabulary
	noDict.Dict, noDict.DictID = nil, 0
	otherDict := storeVocabulary
	otherDict.Dict = append(slices.Clone(storeDict), ' ')
	for name, v := range map[string]store.Vocabulary{"no": {}, "a reordered": swapped, "a dictionary-less": noDict, "another dictionary's": otherDict} {
		s, err := store.Open(home, store.Options{Vocabulary: v})
		if err == nil {
			s.Close()
		}
		if !errors.Is(err, store.ErrVocabulary) || !strings.Contains(err.Error(), "vocabulary") {
			t.Fatalf("open with %s vocabulary: %v, want ErrVocabulary", name, err)
		}
	}
}
