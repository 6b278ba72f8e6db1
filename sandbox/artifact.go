package sandbox

import "io"

// ArtifactSink creates artifacts for outputs too large to keep inline; the harness
// adapts its content-addressed store to it.
type ArtifactSink interface {
	// NewArtifact starts a new artifact with a descriptive name.
	NewArtifact(name string) (ArtifactWriter, error)
}

// ArtifactWriter receives an artifact's bytes as they stream.
type ArtifactWriter interface {
	io.Writer
	// Commit finishes the artifact and returns its reference.
	Commit() (ref string, err error)
	// Abort discards the artifact.
	Abort() error
}
