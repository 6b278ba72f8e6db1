package sessions

import (
	"bytes"
	"fmt"
	"image"
	_ "image/gif"  // GIF's size for DecodeConfig
	_ "image/jpeg" // JPEG's size for DecodeConfig
	_ "image/png"  // PNG's size for DecodeConfig
	"io"
	"net/http"
	"path"
	"path/filepath"
	"strings"

	_ "golang.org/x/image/webp" // WebP's size for DecodeConfig

	"exo/harness/api"
	"exo/sandbox"
)

// imageTypes are the media types exo attaches as image content: what the Responses, Chat
// Completions and Messages APIs and the agents exo runs all take.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// imageExts are the names of image files, for a note when such a file holds something else.
var imageExts = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true}

// sniffImage returns the image media type of a file's first bytes ("" when they are not one of
// imageTypes), by content: a PNG named shot.txt is an image, a text named shot.png is not.
func sniffImage(head []byte) string {
	if mt := http.DetectContentType(head); imageTypes[mt] {
		return mt
	}
	return ""
}

// attachFile reads a mentioned regular file as an image when its first bytes are one, else as
// text; a file named like an image that holds something else is refused with a note.
func (sv *Directory) attachFile(d *sandbox.Dir, a *api.Attachment) {
	head, err := d.ReadFileLimit(a.Path, 512)
	if err != nil {
		a.Note = "not attached: " + err.Error()
		return
	}
	if mt := sniffImage(head); mt != "" {
		sv.readImage(d, a, mt)
		return
	}
	if imageExts[strings.ToLower(path.Ext(a.Path))] {
		a.Note = "not attached: named like an image, but its bytes are not a PNG, JPEG, GIF or WebP image"
		return
	}
	sv.readAttachment(d, a)
}

// readImage stores a mentioned image as an artifact and references it. An image over
// MaxImageBytes, one whose header does not decode, or one whose bytes hold a sealed secret's
// value (an image is not redacted: that would break it) is refused with a note.
func (sv *Directory) readImage(d *sandbox.Dir, a *api.Attachment, mt string) {
	if a.Size > api.MaxImageBytes {
		a.Note = fmt.Sprintf("not attached: an image of %s, over the %s exo sends (shrink it or crop it)", mib(a.Size), mib(api.MaxImageBytes))
		return
	}
	b, err := d.ReadFileLimit(a.Path, api.MaxImageBytes+1)
	switch {
	case err != nil:
		a.Note = "not attached: " + err.Error()
		return
	case len(b) > api.MaxImageBytes: // it grew since it was looked at
		a.Note = fmt.Sprintf("not attached: an image over the %s exo sends (shrink it or crop it)", mib(api.MaxImageBytes))
		return
	}
	a.Size = int64(len(b))
	if sniffImage(b) != mt {
		a.Note = "not attached: the image changed while it was read"
		return
	}
	ref, note := sv.storeImage("image "+a.Path, b)
	if note != "" {
		a.Note = "not attached: " + note
		return
	}
	a.Image = ref
}

// storeImage checks an image's bytes (a known format whose header decodes, no sealed secret's
// value in them) and stores them as an artifact; note says why they were refused.
func (sv *Directory) storeImage(name string, b []byte) (*api.ImageRef, string) {
	mt := sniffImage(b)
	if mt == "" {
		return nil, "not a PNG, JPEG, GIF or WebP image"
	}
	if len(b) > api.MaxImageBytes {
		return nil, fmt.Sprintf("an image of %s, over the %s exo sends (shrink it or crop it)", mib(int64(len(b))), mib(api.MaxImageBytes))
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Sprintf("not a valid %s image (%v)", strings.ToUpper(strings.TrimPrefix(mt, "image/")), err)
	}
	if sv.sec.Redact(string(b)) != string(b) {
		return nil, "the image's bytes hold a sealed secret's value"
	}
	art, err := sv.st.PutArtifact(name, bytes.NewReader(b))
	if err != nil {
		return nil, err.Error()
	}
	return &api.ImageRef{Artifact: art.ID, MediaType: mt, Width: cfg.Width, Height: cfg.Height}, ""
}

// mib renders a byte count in MiB with two decimals.
func mib(n int64) string { return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20)) }

// ImageMentions lists the prompt's mentions that name an image in the session's workspace,
// from the first bytes of each (nothing is stored): for refusing a prompt at once when the
// turn's model takes no images. A path Attach would refuse is not listed.
func (sv *Directory) ImageMentions(sessionID, text string) ([]string, error) {
	ms := Mentions(text)
	if len(ms) == 0 {
		return nil, nil
	}
	s, err := sv.Session(sessionID)
	if err != nil {
		return nil, err
	}
	d, err := sandbox.OpenDir(s.Workspace)
	if err != nil {
		return nil, fmt.Errorf("image mentions: open the workspace: %w", err)
	}
	defer d.Close()
	var out []string
	for _, m := range ms {
		rel, ok := mentionPath(m)
		if !ok {
			continue
		}
		fi, err := d.Lstat(rel)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > api.MaxImageBytes ||
			sv.sec.SecretPathDeniedIn(s.Workspace, filepath.Join(s.Workspace, filepath.FromSlash(rel))) != "" {
			continue
		}
		if head, err := d.ReadFileLimit(rel, 512); err == nil && sniffImage(head) != "" {
			out = append(out, rel)
		}
	}
	return out, nil
}

// pastedPrefix starts the mention of an image pasted from the clipboard: @clipboard:ID.png,
// ID the first digits of its artifact's id.
const pastedPrefix = "clipboard:"

// PasteImage stores an image the user pasted from the clipboard (checked as a mentioned one
// is) and returns the mention that attaches it to a prompt: @clipboard:ID.EXT.
func (sv *Directory) PasteImage(b []byte) (string, *api.ImageRef, error) {
	ref, note := sv.storeImage("pasted image", b)
	if note != "" {
		return "", nil, fmt.Errorf("the pasted image: %s", note)
	}
	return pastedPrefix + ref.Artifact[:16] + "." + strings.TrimPrefix(ref.MediaType, "image/"), ref, nil
}

// attachPasted attaches a pasted image by its mention: the artifact must hold an image.
func (sv *Directory) attachPasted(mention string) (api.Attachment, bool) {
	a := api.Attachment{Path: mention}
	id, _, _ := strings.Cut(strings.TrimPrefix(mention, pastedPrefix), ".")
	if len(id) < 16 || strings.Trim(id, "0123456789abcdef") != "" {
		return a, false
	}
	r, info, err := sv.st.OpenArtifact(id)
	if err != nil {
		a.Note = "not attached: no pasted image has this id"
		return a, true
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, api.MaxImageBytes+1))
	if err != nil {
		a.Note = "not attached: " + err.Error()
		return a, true
	}
	a.Size = info.Size
	ref, note := sv.storeImage("pasted image", b)
	if note != "" {
		a.Note = "not attached: " + note
		return a, true
	}
	a.Image = ref
	return a, true
}
