package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// pathCheckpointChunks is the bucket of chunked checkpoints' parts:
// checkpoint-chunks/<projection>/<branch>/<20-digit seq>/<8-digit part>.
const pathCheckpointChunks = "checkpoint-chunks"

// chunkMagic starts the manifest stored in place of a chunked checkpoint (a projection's
// snapshot is JSON, which never starts with a NUL).
const chunkMagic = "\x00exo chunked checkpoint\x00"

// chunkManifest describes a chunked checkpoint.
type chunkManifest struct {
	Size   int    `json:"size"`
	Chunks int    `json:"chunks"`
	SHA256 string `json:"sha256"`
}

// chunkSize is the most bytes of a checkpoint one commit carries on an engine that bounds a
// commit (half its request limit, like a batch of events); 0 when the engine has no bound.
func (s *Store) chunkSize() int {
	l, ok := s.kv.(interface{ limits() (int, int) })
	if !ok {
		return 0
	}
	_, maxBytes := l.limits()
	return max(maxBytes/2, 1<<10)
}

// chunkPath is the bucket of one chunked checkpoint's parts.
func chunkPath(projection, branch string, seq uint64) []string {
	return []string{pathCheckpointChunks, projection, branch, fmt.Sprintf("%020d", seq)}
}

// chunkKey names part i.
func chunkKey(i int) []byte { return []byte(fmt.Sprintf("%08d", i)) }

// putChunked stores a checkpoint on an engine whose commits hold at most size bytes of it: one
// that fits is stored as is; a bigger one is written part by part, each in its own commit, and
// then its manifest (with the newest-checkpoint pointer) in a last one. Readers see the
// checkpoint only once the manifest is there; parts of a failed write are removed.
func (s *Store) putChunked(projection, branch string, seq uint64, blob []byte, size int) error {
	if len(blob) <= size && !bytes.HasPrefix(blob, []byte(chunkMagic)) {
		return s.Update(func(tx *Tx) error { return tx.PutCheckpoint(projection, branch, seq, blob) })
	}
	sum := sha256.Sum256(blob)
	m := chunkManifest{Size: len(blob), Chunks: (len(blob) + size - 1) / size, SHA256: hex.EncodeToString(sum[:])}
	path := chunkPath(projection, branch, seq)
	for i := range m.Chunks {
		part := blob[i*size : min((i+1)*size, len(blob))]
		err := s.Update(func(tx *Tx) error {
			b, err := tx.tx.createBucket(path...)
			if err != nil {
				return err
			}
			return b.put(chunkKey(i), part)
		})
		if err != nil {
			s.dropChunks(path)
			return fmt.Errorf("store checkpoint %s %s@%d (%d bytes): part %d of %d: %w", projection, branch, seq, len(blob), i+1, m.Chunks, err)
		}
	}
	raw, _ := json.Marshal(m)
	manifest := append([]byte(chunkMagic), raw...)
	if err := s.Update(func(tx *Tx) error { return tx.PutCheckpoint(projection, branch, seq, manifest) }); err != nil {
		s.dropChunks(path)
		return err
	}
	return nil
}

// dropChunks removes the parts of a checkpoint whose write failed, best effort.
func (s *Store) dropChunks(path []string) { _ = s.dropParts(path) }

// unchunk returns the checkpoint a stored value stands for: the value itself, or the parts
// its manifest names, put together and checked against the manifest's size and digest. ok is
// false when they do not add up (a write cut short, two writers racing).
func (t *Tx) unchunk(projection, branch string, seq uint64, v []byte) ([]byte, bool, error) {
	if !bytes.HasPrefix(v, []byte(chunkMagic)) {
		return append([]byte(nil), v...), true, nil
	}
	var m chunkManifest
	if json.Unmarshal(v[len(chunkMagic):], &m) != nil || m.Chunks <= 0 {
		return nil, false, nil
	}
	b, found, err := t.tx.bucket(chunkPath(projection, branch, seq)...)
	if err != nil || !found {
		return nil, false, err
	}
	out := make([]byte, 0, m.Size)
	next := 0
	err = b.scan(nil, func(k, v []byte) (bool, error) {
		if string(k) != string(chunkKey(next)) {
			return false, nil
		}
		out = append(out, v...)
		next++
		return next < m.Chunks, nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("parts of checkpoint %s %s@%d: %w", projection, branch, seq, err)
	}
	sum := sha256.Sum256(out)
	if next != m.Chunks || len(out) != m.Size || hex.EncodeToString(sum[:]) != m.SHA256 {
		return nil, false, nil
	}
	return out, true, nil
}
