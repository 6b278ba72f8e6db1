package harness

import (
	"io"

	"exo/store"
)

// ErrNoArtifact means no artifact has the id (or the prefix matches none).
var ErrNoArtifact = store.ErrNotFound

// OpenArtifact opens a stored artifact by id or unique prefix.
func (h *Harness) OpenArtifact(id string) (io.ReadCloser, error) {
	r, _, err := h.st.OpenArtifact(id)
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
func (h *Harness) Stats() (StoreStats, error) {
	st := StoreStats{Path: h.st.Path(), Bytes: h.st.Size()}
	var err error
	if st.Schema, err = h.st.Schema(); err != nil {
		return st, err
	}
	st.Artifacts, st.ArtifactBytes, err = h.st.ArtifactStats()
	return st, err
}
