package runtimes

import (
	"fmt"
	"io"

	"exo/sandbox"
	"exo/store"
)

// SaveArtifact stores data as an artifact (secret values redacted on the way in) and returns its
// id. Tools whose results are too big for the context keep a head and tail and point here.
func (rs *Runtimes) SaveArtifact(name string, data []byte) (string, error) {
	w, err := artifactSink{rs}.NewArtifact(name)
	if err != nil {
		return "", fmt.Errorf("save artifact %s: %w", name, err)
	}
	if _, err := w.Write(data); err != nil {
		w.Abort()
		return "", fmt.Errorf("save artifact %s: %w", name, err)
	}
	id, err := w.Commit()
	if err != nil {
		return "", fmt.Errorf("save artifact %s: %w", name, err)
	}
	return id, nil
}

// putRedacted stores r as an artifact with secret values redacted.
func (rs *Runtimes) putRedacted(name string, r io.Reader) (string, error) {
	w, err := artifactSink{rs}.NewArtifact(name)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Abort()
		return "", err
	}
	return w.Commit()
}

// artifactSink adapts the store's artifacts to the sandbox's sink interface, redacting secret
// values from the bytes as they stream in.
type artifactSink struct{ rs *Runtimes }

// NewArtifact starts an artifact in the store.
func (a artifactSink) NewArtifact(name string) (sandbox.ArtifactWriter, error) {
	w, err := a.rs.st.CreateArtifact(name)
	if err != nil {
		return nil, err
	}
	aw := &artifactWriter{sw: w, w: w}
	if r := a.rs.sec.Redactor(); r != nil {
		rw := r.NewWriter(w)
		aw.red, aw.w = rw, rw
	}
	return aw, nil
}

// artifactWriter adapts store.ArtifactWriter to the sandbox interface.
type artifactWriter struct {
	sw  *store.ArtifactWriter
	red interface{ Flush() error }
	w   io.Writer
}

// Write streams bytes (redacted) into the artifact.
func (w *artifactWriter) Write(p []byte) (int, error) {
	if _, err := w.w.Write(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Abort discards the artifact.
func (w *artifactWriter) Abort() error { return w.sw.Abort() }

// Commit flushes what the redactor held back, stores the artifact and returns its id.
func (w *artifactWriter) Commit() (string, error) {
	if w.red != nil {
		if err := w.red.Flush(); err != nil {
			w.sw.Abort()
			return "", err
		}
	}
	a, err := w.sw.Commit()
	return a.ID, err
}
