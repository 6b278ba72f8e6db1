package harness

import "fmt"

// SaveArtifact stores data as an artifact (secret values redacted on the way in) and returns its
// id. Tools whose results are too big for the context keep a head and tail and point here.
func (h *Harness) SaveArtifact(name string, data []byte) (string, error) {
	w, err := artifactSink{h}.NewArtifact(name)
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

// SandboxHelper is the argv prefix that runs the sandbox helper (nil: this executable), for
// harness sub-packages that start confined helper programs such as MCP servers.
func (h *Harness) SandboxHelper() []string { return h.opts.SandboxHelper }
