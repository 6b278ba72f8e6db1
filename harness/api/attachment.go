package api

import (
	"context"
	"fmt"
	"strings"
)

// Attachment is a workspace file a prompt mentioned with @path, attached to the user's turn.
type Attachment struct {
	// Path is the file's path relative to the workspace, as mentioned.
	Path string `json:"path"`
	// Content is the file's text (at most MaxAttachBytes of it); empty when Note says why.
	Content string `json:"content,omitempty"`
	// Size is the file's size in bytes.
	Size int64 `json:"size"`
	// Truncated says Content holds only the first MaxAttachBytes.
	Truncated bool `json:"truncated,omitempty"`
	// Note says why nothing or only part was attached (a binary file, a folder, a link…).
	Note string `json:"note,omitempty"`
	// Image is set when the file is an image, attached as image content: its bytes are an
	// artifact, never in the event.
	Image *ImageRef `json:"image,omitempty"`
}

// ImageRef is an attached image: the artifact that holds its bytes and what they are.
type ImageRef struct {
	// Artifact is the id (sha256) of the artifact holding the image's bytes.
	Artifact string `json:"artifact"`
	// MediaType is image/png, image/jpeg, image/gif or image/webp, from the bytes.
	MediaType string `json:"media_type"`
	// Width and Height are the image's size in pixels.
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
}

// MaxImageBytes bounds one attached image: 3.75 MiB, whose base64 (5 MiB) is the most
// Anthropic's Messages API takes for one image (OpenAI takes more).
const MaxImageBytes = 3840 << 10

// HasImages reports whether any attachment is an image.
func HasImages(as []Attachment) bool {
	for _, a := range as {
		if a.Image != nil {
			return true
		}
	}
	return false
}

// MaxAttachBytes bounds the bytes of one attached file.
const MaxAttachBytes = 256 << 10

// attachedLines describes attachments for the conversation: "path (size)" or "path: note".
func attachedLines(as []Attachment) []string {
	var out []string
	for _, a := range as {
		switch {
		case a.Image != nil:
			out = append(out, fmt.Sprintf("image %s (%s %d×%d, %s)", a.Path, imageKind(a.Image.MediaType), a.Image.Width, a.Image.Height, sizeText(a.Size)))
		case a.Note != "" && !a.Truncated:
			out = append(out, a.Path+": "+a.Note)
		case a.Truncated:
			out = append(out, fmt.Sprintf("%s (%s, cut to %d KiB)", a.Path, sizeText(a.Size), MaxAttachBytes>>10))
		default:
			out = append(out, fmt.Sprintf("%s (%s)", a.Path, sizeText(a.Size)))
		}
	}
	return out
}

// sizeText renders a byte count: 512 B, 1.2 KB, 3.4 MB.
func sizeText(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// imageKind names an image's format from its media type: PNG, JPEG, GIF, WEBP.
func imageKind(mt string) string {
	k := strings.ToUpper(strings.TrimPrefix(mt, "image/"))
	if k == "" {
		return "image"
	}
	return k
}

// PasteImageRequest stores an image the user pasted from the clipboard, for a session's prompts.
type PasteImageRequest struct {
	Session string `json:"session"`
	// Data is the image's bytes (base64 in JSON).
	Data []byte `json:"data"`
}

// PastedImage is a stored pasted image: the mention that attaches it to a prompt
// (clipboard:ID.png) and what it is.
type PastedImage struct {
	Mention string   `json:"mention"`
	Image   ImageRef `json:"image"`
	Size    int64    `json:"size"`
}

// ImagePaster stores pasted images; the daemon's client and the service are one.
type ImagePaster interface {
	// PasteImage checks and stores an image from the clipboard and returns its mention.
	PasteImage(ctx context.Context, req PasteImageRequest) (PastedImage, error)
}
