package eventlog

import (
	"io"

	"exo/store"
)

// ErrNoArtifact means no artifact has the id (or the prefix matches none).
var ErrNoArtifact = store.ErrNotFound

// OpenArtifact opens a stored artifact by id or unique prefix.
func (l *Log) OpenArtifact(id string) (io.ReadCloser, error) {
	r, _, err := l.st.OpenArtifact(id)
	return r, err
}

// StoreStats describes the store for diagnostics.
type StoreStats struct {
	Path          string
	Schema        uint64
	Bytes         int64
	Artifacts     int
	ArtifactBytes int64
}

// Stats reads the store's path, schema version and sizes.
func (l *Log) Stats() (StoreStats, error) {
	st := StoreStats{Path: l.st.Path(), Bytes: l.st.Size()}
	var err error
	if st.Schema, err = l.st.Schema(); err != nil {
		return st, err
	}
	st.Artifacts, st.ArtifactBytes, err = l.st.ArtifactStats()
	return st, err
}
