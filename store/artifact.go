package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"time"

	"exo/store/failpoint"
)

// Artifact is the metadata of a content-addressed blob; ID is the sha256 of its content.
type Artifact struct {
	ID      string    `json:"id"`
	Size    int64     `json:"size"`
	Name    string    `json:"name,omitempty"`
	Created time.Time `json:"created"`
}

// ArtifactWriter streams a new artifact to disk while hashing it; memory use is constant.
// Commit stores it (once per content) and Abort discards it.
type ArtifactWriter struct {
	s    *Store
	name string
	f    *os.File
	h    hash.Hash
	n    int64
	done bool
}

// CreateArtifact starts writing a new artifact with a descriptive name.
func (s *Store) CreateArtifact(name string) (*ArtifactWriter, error) {
	f, err := s.blobs.Create()
	if err != nil {
		return nil, fmt.Errorf("create artifact %q: %w", name, err)
	}
	return &ArtifactWriter{s: s, name: name, f: f, h: sha256.New()}, nil
}

// Write appends bytes to the artifact.
func (w *ArtifactWriter) Write(p []byte) (int, error) {
	if w.done {
		return 0, errors.New("write artifact: already committed or aborted")
	}
	failpoint.Hit("artifact.write") // "artifact.write#N" kills exo in the middle of a big blob
	n, err := w.f.Write(p)
	w.h.Write(p[:n])
	w.n += int64(n)
	if err != nil {
		return n, fmt.Errorf("write artifact %q: %w", w.name, err)
	}
	return n, nil
}

// Size returns the bytes written so far.
func (w *ArtifactWriter) Size() int64 { return w.n }

// Abort discards the artifact being written.
func (w *ArtifactWriter) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	w.f.Close()
	return os.Remove(w.f.Name())
}

// Commit makes the blob durable under its content hash and records its metadata. Identical
// content is stored once: committing it again returns the existing artifact.
func (w *ArtifactWriter) Commit() (Artifact, error) {
	if w.done {
		return Artifact{}, errors.New("commit artifact: already committed or aborted")
	}
	w.done = true
	tmp := w.f.Name()
	defer os.Remove(tmp)
	if err := w.f.Sync(); err != nil {
		w.f.Close()
		return Artifact{}, fmt.Errorf("sync artifact %q: %w", w.name, err)
	}
	if err := w.f.Close(); err != nil {
		return Artifact{}, fmt.Errorf("close artifact %q: %w", w.name, err)
	}
	a := Artifact{ID: hex.EncodeToString(w.h.Sum(nil)), Size: w.n, Name: w.name, Created: now()}
	if err := w.s.blobs.Put(tmp, a.ID); err != nil {
		return Artifact{}, err
	}
	return w.s.recordArtifact(a)
}

// recordArtifact stores metadata for a blob, keeping the first record of identical content.
func (s *Store) recordArtifact(a Artifact) (Artifact, error) {
	err := s.Update(func(tx *Tx) error {
		b, err := tx.top(pathArtifacts)
		if err != nil {
			return err
		}
		old, err := b.get([]byte(a.ID))
		if err != nil {
			return err
		}
		if old != nil {
			return json.Unmarshal(old, &a)
		}
		raw, err := json.Marshal(a)
		if err != nil {
			return err
		}
		return b.put([]byte(a.ID), raw)
	})
	if err != nil {
		return Artifact{}, fmt.Errorf("record artifact %s: %w", a.ID, err)
	}
	return a, nil
}

// PutArtifact stores everything r yields as an artifact.
func (s *Store) PutArtifact(name string, r io.Reader) (Artifact, error) {
	w, err := s.CreateArtifact(name)
	if err != nil {
		return Artifact{}, err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Abort()
		return Artifact{}, fmt.Errorf("copy into artifact %q: %w", name, err)
	}
	return w.Commit()
}

// ArtifactInfo returns an artifact's metadata by id or unique id prefix (at least 4 digits).
func (s *Store) ArtifactInfo(ref string) (a Artifact, err error) {
	err = s.View(func(tx *Tx) error {
		b, err := tx.top(pathArtifacts)
		if err != nil {
			return err
		}
		var found []byte
		if len(ref) >= 4 {
			err = b.scan([]byte(ref), func(k, v []byte) (bool, error) {
				if !hasPrefix(k, ref) {
					return false, nil
				}
				if found != nil {
					return false, fmt.Errorf("artifact %q is ambiguous", ref)
				}
				found = v
				return true, nil
			})
			if err != nil {
				return err
			}
		}
		if found == nil {
			return fmt.Errorf("artifact %q: %w", ref, ErrNotFound)
		}
		return json.Unmarshal(found, &a)
	})
	return a, err
}

// OpenArtifact opens an artifact's content for reading.
func (s *Store) OpenArtifact(ref string) (io.ReadCloser, Artifact, error) {
	a, err := s.ArtifactInfo(ref)
	if err != nil {
		return nil, a, err
	}
	f, err := s.blobs.Open(a.ID)
	if err != nil {
		return nil, a, fmt.Errorf("open artifact %s: %w", a.ID, err)
	}
	return f, a, nil
}

// ArtifactStats returns how many artifacts are recorded and their total size.
func (s *Store) ArtifactStats() (count int, bytes int64, err error) {
	err = s.View(func(tx *Tx) error {
		b, err := tx.top(pathArtifacts)
		if err != nil {
			return err
		}
		return b.scan(nil, func(_, v []byte) (bool, error) {
			var a Artifact
			if json.Unmarshal(v, &a) == nil {
				count++
				bytes += a.Size
			}
			return true, nil
		})
	})
	return count, bytes, err
}

// hasPrefix reports whether key starts with p.
func hasPrefix(key []byte, p string) bool {
	return len(key) >= len(p) && string(key[:len(p)]) == p
}

// Blobs returns where the store keeps artifact contents.
func (s *Store) Blobs() Blobs { return s.blobs }
