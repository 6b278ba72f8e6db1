package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

// Vocabulary is what the caller's events usually say, given to the store when it opens so that
// it stores them smaller: the store itself knows no event type or actor. The same database must
// always be opened with the same vocabulary or one that extends it (see ErrVocabulary): stored
// events refer to its names by place and to its dictionary by id.
type Vocabulary struct {
	// Names are the type and actor strings most events carry. An event stored as it is names
	// them by their place in this list instead of spelling them out (encoding version 3). The
	// list is append-only: an entry's place never changes, since stored events refer to it; a
	// string that is not here is spelled out.
	Names []string
	// Dict is a zstd raw-content dictionary of the events' usual shapes, used to compress them
	// (encoding version 2). It is only an aid, but events written with it need it to be read,
	// so its bytes never change: a better one gets a new DictID.
	Dict []byte
	// DictID names Dict in every frame that uses it (non-zero when Dict is set).
	DictID uint32
}

// vocabRecord is a vocabulary's identity as a database's metadata keeps it: how many names its
// events may refer to and a digest of them, and the id and digest of its dictionary.
type vocabRecord struct {
	names    uint64
	namesSum [32]byte
	dictID   uint32
	dictSum  [32]byte
}

// metaVocabularyKey keeps the vocabRecord of the database's vocabulary in metaBucket.
var metaVocabularyKey = []byte("vocabulary")

// vocabRecordVersion is the first byte of a stored vocabRecord.
const vocabRecordVersion = 1

// legacyVocab is the vocabulary every database written before databases recorded theirs was
// written with: 53 names and the dictionary 0x65786f01 (the store held them then). A database
// without a vocabulary record is read only with a vocabulary that starts with those names and
// has that dictionary.
var legacyVocab = vocabRecord{
	names:    53,
	namesSum: mustSum("a7598f799c0374b6b1b35b1ffde657f2d82e10415f7f64d7e3bbba8a89de02f5"),
	dictID:   0x65786f01,
	dictSum:  mustSum("b56c4635741c3bc52273c264fae36d85a58aca80256f917766c783ff027122a7"),
}

// mustSum decodes a fixed sha256 digest written in hex.
func mustSum(h string) (out [32]byte) {
	if n, err := hex.Decode(out[:], []byte(h)); err != nil || n != len(out) {
		panic(fmt.Sprintf("bad digest %q", h))
	}
	return out
}

// namesSum digests the first n names of a list.
func namesSum(names []string) [32]byte {
	buf := []byte("exo.vocabulary.names.v1\x00")
	for _, n := range names {
		buf = appendString(buf, n)
	}
	return sha256.Sum256(buf)
}

// record returns the vocabulary's identity.
func (v Vocabulary) record() vocabRecord {
	r := vocabRecord{names: uint64(len(v.Names)), namesSum: namesSum(v.Names), dictID: v.DictID}
	if v.DictID != 0 {
		r.dictSum = sha256.Sum256(v.Dict)
	}
	return r
}

// check says whether a database whose events use the vocabulary stored can be read and written
// with v: v must start with the stored names and have the stored dictionary, if any.
func (v Vocabulary) check(stored vocabRecord) error {
	given := v.record()
	var prefix [32]byte
	if stored.names <= given.names {
		prefix = namesSum(v.Names[:stored.names])
	}
	switch {
	case stored.names > given.names:
		return fmt.Errorf("its events name types and actors from a vocabulary of %d names; this store was given %d: %w", stored.names, given.names, ErrVocabulary)
	case prefix != stored.namesSum:
		return fmt.Errorf("its events name types and actors from a vocabulary of %d names (digest %x) that this store's first %d names (digest %x) are not: %w",
			stored.names, stored.namesSum[:6], stored.names, prefix[:6], ErrVocabulary)
	case stored.dictID != 0 && given.dictID != stored.dictID:
		return fmt.Errorf("its events are compressed with dictionary %#x; this store was given %s: %w", stored.dictID, dictName(given.dictID), ErrVocabulary)
	case stored.dictID != 0 && given.dictSum != stored.dictSum:
		return fmt.Errorf("its events are compressed with a dictionary %#x (digest %x) other than the one this store was given under that id (digest %x): %w",
			stored.dictID, stored.dictSum[:6], given.dictSum[:6], ErrVocabulary)
	}
	return nil
}

// dictName describes a dictionary id for an error.
func dictName(id uint32) string {
	if id == 0 {
		return "none"
	}
	return fmt.Sprintf("dictionary %#x", id)
}

// covers reports whether a stored record already names everything v may write: its names and
// its dictionary. When it does not, opening records v.
func (r vocabRecord) covers(v Vocabulary) bool {
	return r.names == uint64(len(v.Names)) && r.dictID == v.DictID
}

// encode serialises the record for metaBucket.
func (r vocabRecord) encode() []byte {
	buf := []byte{vocabRecordVersion}
	buf = binary.AppendUvarint(buf, r.names)
	buf = append(buf, r.namesSum[:]...)
	buf = binary.AppendUvarint(buf, uint64(r.dictID))
	buf = append(buf, r.dictSum[:]...)
	sum := sha256.Sum256(buf)
	return append(buf, sum[:vocabRecordSumLen]...)
}

// vocabRecordSumLen is how much of the record's own digest ends it, so that a damaged record
// reads as damage, not as another vocabulary.
const vocabRecordSumLen = 8

// decodeVocabRecord parses what encode wrote, checking its digest.
func decodeVocabRecord(b []byte) (vocabRecord, error) {
	var r vocabRecord
	if len(b) <= vocabRecordSumLen || b[0] != vocabRecordVersion {
		return r, fmt.Errorf("vocabulary record: unknown version or too short")
	}
	body := b[:len(b)-vocabRecordSumLen]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:vocabRecordSumLen], b[len(body):]) {
		return r, fmt.Errorf("vocabulary record: checksum mismatch")
	}
	rd := reader{b: body[1:]}
	r.names = rd.uvarint()
	sum := rd.fixed(len(r.namesSum))
	copy(r.namesSum[:], sum)
	id := rd.uvarint()
	copy(r.dictSum[:], rd.fixed(len(r.dictSum)))
	switch {
	case rd.err != nil:
		return r, fmt.Errorf("vocabulary record: %w", rd.err)
	case len(rd.b) != 0 || id > 1<<32-1 || r.names > maxFieldLen:
		return r, fmt.Errorf("vocabulary record: malformed")
	}
	r.dictID = uint32(id)
	return r, nil
}

// fixed reads n bytes.
func (r *reader) fixed(n int) []byte {
	if r.err != nil {
		return nil
	}
	if len(r.b) < n {
		r.err = fmt.Errorf("%d bytes left, want %d", len(r.b), n)
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

// storedVocabulary reads the vocabulary record of an initialised database: the one in its
// metadata, or legacyVocab when it has none. ok is false for a database not initialised yet.
func storedVocabulary(tx kvTx) (r vocabRecord, ok bool, err error) {
	meta, ok, err := tx.bucket(pathMeta)
	if err != nil || !ok {
		return r, false, err
	}
	b, err := meta.get(metaVocabularyKey)
	if err != nil {
		return r, false, err
	}
	if b == nil {
		return legacyVocab, true, nil
	}
	r, err = decodeVocabRecord(bytes.Clone(b))
	if err != nil {
		return r, false, fmt.Errorf("%v: %w (%s)", err, ErrCorrupt, wayOut)
	}
	return r, true, nil
}

// checkVocabulary refuses a database whose events were stored with a vocabulary other than the
// store's, and reports whether its record already names the store's vocabulary (else opening
// records it; a database not initialised yet has no record).
func (s *Store) checkVocabulary(tx kvTx) (named bool, err error) {
	stored, ok, err := storedVocabulary(tx)
	if err != nil {
		return false, fmt.Errorf("open %s: %w", s.Path(), err)
	}
	if !ok {
		return false, nil
	}
	if err := s.vocab.check(stored); err != nil {
		if stored == legacyVocab && !recorded(tx) {
			// Nothing tells a database from before vocabulary records apart from one whose
			// record was lost: both ways out are named.
			return false, fmt.Errorf("open %s: it records no vocabulary, as databases written before they did: %w; if this exo wrote it, its metadata is damaged: %w (%s)",
				s.Path(), err, ErrCorrupt, wayOut)
		}
		return false, fmt.Errorf("open %s: %w", s.Path(), err)
	}
	return stored.covers(s.vocab), nil
}

// recorded reports whether an initialised database holds a vocabulary record.
func recorded(tx kvTx) bool {
	meta, ok, err := tx.bucket(pathMeta)
	if err != nil || !ok {
		return false
	}
	b, err := meta.get(metaVocabularyKey)
	return err == nil && b != nil
}
