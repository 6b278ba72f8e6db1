package api

import "fmt"

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
}

// MaxAttachBytes bounds the bytes of one attached file.
const MaxAttachBytes = 256 << 10

// attachedLines describes attachments for the conversation: "path (size)" or "path: note".
func attachedLines(as []Attachment) []string {
	var out []string
	for _, a := range as {
		switch {
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
