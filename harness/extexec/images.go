package extexec

import (
	"fmt"
	"io"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/executor"
	"exo/harness/provider"
)

// ImageTaker is a Proc whose agent takes images with a prompt: Turn then finds them in the
// turn's Images. A Proc that is not one, or says no, has a prompt with images refused before
// anything is recorded.
type ImageTaker interface {
	// TakesImages says whether the agent takes images, and why not when it does not.
	TakesImages() (bool, string)
}

// Images are the images the turn's prompt attaches, with their bytes, in order.
func (t *Turn) Images() []provider.Image { return t.images }

// turnImages loads a prompt's images for the agent, or refuses them when it takes none.
func (r *Runner) turnImages(ss *Session, atts []harness.Attachment) ([]provider.Image, error) {
	var paths []string
	for _, a := range atts {
		if a.Image != nil {
			paths = append(paths, a.Path)
		}
	}
	if len(paths) == 0 {
		return nil, nil
	}
	why := "this agent takes no images through exo"
	if it, ok := ss.Proc.(ImageTaker); ok {
		var takes bool
		if takes, why = it.TakesImages(); takes {
			why = ""
		}
	}
	if why == "" { // the agent's model traffic goes through exo: its model must take them too
		if spec, err := r.h.Model(ss.Model); err == nil {
			if ok, no := provider.ImageInput(spec.Provider, spec.ModelID); !ok {
				why = "the agent's model " + spec.Name + ": " + no
			}
		}
	}
	if why != "" {
		return nil, &executor.ImagesRefused{Paths: paths, Why: why}
	}
	var out []provider.Image
	for _, a := range atts {
		if a.Image == nil {
			continue
		}
		b, err := r.readImage(a.Image.Artifact)
		if err != nil {
			return nil, fmt.Errorf("read the attached image %s: %w", a.Path, err)
		}
		out = append(out, provider.Image{MediaType: a.Image.MediaType, Artifact: a.Image.Artifact, Data: b})
	}
	return out, nil
}

// readImage reads an image artifact's bytes, at most MaxImageBytes of them.
func (r *Runner) readImage(id string) ([]byte, error) {
	rc, _, err := r.h.Store().OpenArtifact(id)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, api.MaxImageBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > api.MaxImageBytes {
		return nil, fmt.Errorf("the artifact is over %d bytes", api.MaxImageBytes)
	}
	return b, nil
}
