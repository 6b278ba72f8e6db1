package executor

import (
	"fmt"
	"io"
	"strings"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/provider"
)

// ImagesRefused is the error of a prompt whose images the turn's model cannot take: the
// prompt is not recorded nor sent (an image is never dropped silently).
type ImagesRefused struct {
	// Paths are the images the prompt mentions.
	Paths []string
	// Why says what cannot take them.
	Why string
}

// Error says which images were refused, why, and what to do.
func (e *ImagesRefused) Error() string {
	return fmt.Sprintf("the prompt attaches the image %s, but %s: remove it, or pick a model that takes images (/model)",
		strings.Join(e.Paths, ", "), e.Why)
}

// imagePaths lists the attachments that are images.
func imagePaths(atts []api.Attachment) []string {
	var out []string
	for _, a := range atts {
		if a.Image != nil {
			out = append(out, a.Path)
		}
	}
	return out
}

// checkImages refuses a prompt with images when the model the turn runs on takes none: model
// is the turn's own model ("" for the session's).
func (x *Executor) checkImages(sessionID, model string, atts []api.Attachment) error {
	paths := imagePaths(atts)
	if len(paths) == 0 {
		return nil
	}
	if model == "" {
		s, err := x.h.Session(sessionID)
		if err != nil {
			return err
		}
		model = x.turnModel(s)
	}
	spec, err := x.h.Model(model)
	if err != nil {
		return err
	}
	if ok, why := provider.ImageInput(spec.Provider, spec.ModelID); !ok {
		return &ImagesRefused{Paths: paths, Why: why}
	}
	return nil
}

// loadImages returns the messages of a request with their images' bytes read from the
// artifacts. A model that takes no images (the session's model was changed since) gets, in
// place of each, a note in the message's text saying that an image was there and not sent.
// The view's own messages are left as they are.
func (x *Executor) loadImages(spec harness.ModelSpec, msgs []provider.Message) ([]provider.Message, error) {
	out := append([]provider.Message(nil), msgs...)
	if !provider.HasImages(msgs) {
		return out, nil
	}
	ok, why := provider.ImageInput(spec.Provider, spec.ModelID)
	for i, m := range out {
		if len(m.Images) == 0 {
			continue
		}
		if !ok {
			out[i].Text += fmt.Sprintf("\n\n[%d image(s) attached here were not sent: %s]", len(m.Images), why)
			out[i].Images = nil
			continue
		}
		ims := make([]provider.Image, len(m.Images))
		for j, im := range m.Images {
			b, err := x.readArtifact(im.Artifact)
			if err != nil {
				return nil, fmt.Errorf("read the attached image %s: %w", im.Artifact, err)
			}
			ims[j] = provider.Image{MediaType: im.MediaType, Artifact: im.Artifact, Data: b}
		}
		out[i].Images = ims
	}
	return out, nil
}

// readArtifact reads an artifact's bytes, at most MaxImageBytes of them.
func (x *Executor) readArtifact(id string) ([]byte, error) {
	r, _, err := x.h.Store().OpenArtifact(id)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, api.MaxImageBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > api.MaxImageBytes {
		return nil, fmt.Errorf("the artifact is over %d bytes", api.MaxImageBytes)
	}
	return b, nil
}

// imageTokens estimates an image's input tokens as Anthropic counts them (width × height / 750,
// at most about 1,600 once the API scales a big image down).
func imageTokens(w, h int) int {
	return min(w*h/750, 1600)
}

// userImages adds a prompt's images to the user message its text went into (held back with
// the text while tool results are pending).
func (v *View) userImages(atts []api.Attachment) {
	var ims []provider.Image
	n := 0
	for _, a := range atts {
		if a.Image != nil {
			ims = append(ims, provider.Image{MediaType: a.Image.MediaType, Artifact: a.Image.Artifact})
			n += imageTokens(a.Image.Width, a.Image.Height)
		}
	}
	if len(ims) == 0 {
		return
	}
	if len(v.pending) > 0 {
		v.deferredImages = append(v.deferredImages, ims...)
		return
	}
	last := len(v.Messages) - 1
	if last < 0 || v.Messages[last].Role != provider.RoleUser {
		v.add(provider.Message{Role: provider.RoleUser})
		last = len(v.Messages) - 1
	}
	v.Messages[last].Images = append(v.Messages[last].Images, ims...)
	v.Tokens += n
	v.meta[last].tokens += n
}
