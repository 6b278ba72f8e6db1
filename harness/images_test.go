package harness

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// encodeImage returns a w×h image as PNG or JPEG bytes.
func encodeImage(t *testing.T, w, h int, asJPEG bool) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(0, 0, color.RGBA{G: 255, A: 255})
	var b bytes.Buffer
	var err error
	if asJPEG {
		err = jpeg.Encode(&b, img, nil)
	} else {
		err = png.Encode(&b, img)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// artifactBytes reads an artifact whole.
func artifactBytes(t *testing.T, h *Harness, id string) []byte {
	t.Helper()
	r, _, err := h.Store().OpenArtifact(id)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, _ := io.ReadAll(r)
	return b
}

// TestAttachImage mentions images and files that only look like one: a PNG and a JPEG without
// an extension attach as images (by content) whose bytes are an artifact, not in the
// attachment; a text named .png, a PNG too big, a PNG whose header is broken and a PNG holding a
// sealed secret's value are refused with a note saying why.
func TestAttachImage(t *testing.T) {
	h, ws := attachSetup(t)
	shot, photo := encodeImage(t, 64, 48, false), encodeImage(t, 20, 10, true)
	secret := "sk-IMG-SECRET-5d1c9e"
	if err := h.SetSecret("key", []byte(secret)); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"shot.png":   shot,
		"photo":      photo,
		"notes.png":  []byte("just some text\n"),
		"broken.png": append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 40)...),
		"leaky.png":  append(append([]byte{}, shot...), secret...),
		"readme.txt": []byte("hello\n"),
	}
	for p, b := range files {
		os.WriteFile(filepath.Join(ws, p), b, 0o644)
	}
	huge, _ := os.Create(filepath.Join(ws, "huge.png"))
	huge.Write(shot)
	huge.Truncate(MaxImageBytes + 1)
	huge.Close()
	s, err := h.NewSession(NewSessionOptions{Name: "a", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	atts, err := h.Attach(s.ID, "@shot.png @photo @notes.png @broken.png @leaky.png @huge.png @readme.txt")
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]Attachment{}
	for _, a := range atts {
		by[a.Path] = a
	}
	for name, want := range map[string]struct {
		data      []byte
		mt        string
		w, height int
	}{"shot.png": {shot, "image/png", 64, 48}, "photo": {photo, "image/jpeg", 20, 10}} {
		a := by[name]
		if a.Image == nil || a.Note != "" || a.Content != "" {
			t.Fatalf("%s: %+v", name, a)
		}
		if a.Image.MediaType != want.mt || a.Image.Width != want.w || a.Image.Height != want.height || a.Size != int64(len(want.data)) {
			t.Errorf("%s: %+v %+v", name, a, a.Image)
		}
		if got := artifactBytes(t, h, a.Image.Artifact); !bytes.Equal(got, want.data) {
			t.Errorf("%s: the artifact holds %d bytes, not the file's %d", name, len(got), len(want.data))
		}
	}
	for name, note := range map[string]string{
		"notes.png": "not a PNG, JPEG, GIF or WebP", "broken.png": "not a valid PNG",
		"leaky.png": "sealed secret", "huge.png": "over the 3.75 MiB",
	} {
		if a := by[name]; a.Image != nil || a.Content != "" || !strings.Contains(a.Note, note) {
			t.Errorf("%s: want a note with %q, got %+v", name, note, a)
		}
	}
	if a := by["readme.txt"]; a.Content != "hello\n" || a.Image != nil {
		t.Errorf("readme.txt: %+v", a)
	}
	// The event holds references, never the image's bytes.
	raw, _ := json.Marshal(InvocationReceived{Text: "x", Attachments: atts})
	if len(raw) > 4096 || bytes.Contains(raw, shot[16:40]) || strings.Contains(string(raw), secret) {
		t.Fatalf("the event holds image bytes or the secret (%d bytes)", len(raw))
	}
	text := AttachmentsText(atts)
	if !strings.Contains(text, `<attached_file path="shot.png" image="image/png">`) || !strings.Contains(text, "64×48 image") {
		t.Errorf("model text: %s", text)
	}
}

// TestAttachImageInFork mentions an image in a fork: the fork's own copy is read, not the
// parent's file of the same name.
func TestAttachImageInFork(t *testing.T) {
	h, ws := attachSetup(t)
	os.WriteFile(filepath.Join(ws, "shot.png"), encodeImage(t, 8, 8, false), 0o644)
	s, _ := h.NewSession(NewSessionOptions{Name: "a", Workspace: ws})
	f, err := h.Fork(s.ID, 0, ForkOptions{Name: "f"})
	if err != nil {
		t.Fatal(err)
	}
	mine := encodeImage(t, 30, 5, false)
	os.WriteFile(filepath.Join(f.Workspace, "shot.png"), mine, 0o644)
	atts, err := h.Attach(f.ID, "@shot.png")
	if err != nil || len(atts) != 1 || atts[0].Image == nil {
		t.Fatalf("%v %+v", err, atts)
	}
	if got := artifactBytes(t, h, atts[0].Image.Artifact); !bytes.Equal(got, mine) || atts[0].Image.Width != 30 {
		t.Fatalf("the fork's mention read %d bytes, %d wide: not its own copy", len(got), atts[0].Image.Width)
	}
}

// TestPasteImage stores a pasted image and attaches it by its @clipboard: mention; bytes that
// are no image are refused, and a mention of no stored image is a note.
func TestPasteImage(t *testing.T) {
	h, ws := attachSetup(t)
	s, _ := h.NewSession(NewSessionOptions{Name: "a", Workspace: ws})
	pic := encodeImage(t, 12, 7, false)
	mention, ref, err := h.PasteImage(pic)
	if err != nil || !strings.HasPrefix(mention, "clipboard:") || !strings.HasSuffix(mention, ".png") || ref.Width != 12 {
		t.Fatalf("%q %+v %v", mention, ref, err)
	}
	if _, _, err := h.PasteImage([]byte("plain text")); err == nil || !strings.Contains(err.Error(), "not a PNG") {
		t.Fatalf("text pasted as an image: %v", err)
	}
	atts, err := h.Attach(s.ID, "what is @"+mention+"? and @clipboard:00000000000000000000.png")
	if err != nil || len(atts) != 2 {
		t.Fatalf("%v %+v", err, atts)
	}
	if a := atts[0]; a.Image == nil || a.Image.Artifact != ref.Artifact || !bytes.Equal(artifactBytes(t, h, a.Image.Artifact), pic) {
		t.Fatalf("the pasted image: %+v", a)
	}
	if a := atts[1]; a.Image != nil || !strings.Contains(a.Note, "no pasted image") {
		t.Fatalf("an unknown pasted image: %+v", a)
	}
}
