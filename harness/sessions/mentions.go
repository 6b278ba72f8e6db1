package sessions

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"exo/harness/api"
	"exo/sandbox"
)

// maxMentions bounds how many files one prompt attaches.
const maxMentions = 20

// Mentions returns the @path mentions of a prompt in order, without duplicates: an @ at the
// start or after a space, then a path up to the next space (or @"a quoted path"); trailing
// punctuation is not part of the path. Whether a mention names a file is for Attach to say.
func Mentions(text string) []string {
	var out []string
	seen := map[string]bool{}
	for i := 0; i < len(text); i++ {
		if text[i] != '@' || (i > 0 && !isSpace(text[i-1])) {
			continue
		}
		p, n := mentionAt(text[i+1:])
		i += n
		if p != "" && !seen[p] && len(out) < maxMentions {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// mentionAt reads the path after an @ and returns it with the bytes it took.
func mentionAt(s string) (string, int) {
	if strings.HasPrefix(s, `"`) {
		if end := strings.IndexByte(s[1:], '"'); end > 0 {
			return s[1 : 1+end], end + 2
		}
		return "", 0
	}
	end := strings.IndexFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' })
	if end < 0 {
		end = len(s)
	}
	return strings.TrimRight(s[:end], ".,;:!?)]}'\""), end
}

// isSpace reports whether b separates words.
func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '(' }

// mentionPath returns a mention as a clean path relative to the workspace, and whether it
// stays inside it (no absolute path, no climb out with ..): what Attach and ImageMentions read.
func mentionPath(mention string) (string, bool) {
	rel := path.Clean(strings.TrimPrefix(filepath.ToSlash(mention), "./"))
	return rel, rel != "." && !path.IsAbs(rel) && rel != ".." && !strings.HasPrefix(rel, "../")
}

// Attach reads the files a prompt mentions from the session's workspace: through the
// no-follow, beneath-only file layer, so a mention cannot reach a file outside the workspace
// (a planted link is refused, not followed) or under exo's home, but for the session's own
// working copy when exo keeps it there (a fork's). Mentions that name nothing
// are left as text; a folder, a link, a binary or unreadable file is attached as a note.
func (sv *Directory) Attach(sessionID, text string) ([]api.Attachment, error) {
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
		return nil, fmt.Errorf("attach files: open the workspace: %w", err)
	}
	defer d.Close()
	var out []api.Attachment
	for _, m := range ms {
		if a, ok := sv.attachOne(d, s.Workspace, m); ok {
			out = append(out, a)
		}
	}
	return out, nil
}

// attachOne reads one mentioned path; ok is false when it names nothing in the workspace.
func (sv *Directory) attachOne(d *sandbox.Dir, ws, mention string) (api.Attachment, bool) {
	if strings.HasPrefix(mention, pastedPrefix) {
		return sv.attachPasted(mention)
	}
	rel, ok := mentionPath(mention)
	a := api.Attachment{Path: rel}
	if !ok {
		return a, false
	}
	fi, err := d.Lstat(rel)
	switch {
	case errors.Is(err, sandbox.ErrUnsafePath):
		a.Note = "not attached: the path goes through a symbolic link, which exo does not follow"
		return a, true
	case err != nil:
		return a, false
	}
	a.Size = fi.Size()
	if why := sv.sec.SecretPathDeniedIn(ws, filepath.Join(ws, filepath.FromSlash(rel))); why != "" {
		a.Note, a.Size = "not attached: "+why, 0
		return a, true
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		a.Note = "not attached: a symbolic link, which exo does not follow"
	case fi.IsDir():
		a.Note, a.Content = "a folder: its entries are listed", listFolder(d, rel)
	case !fi.Mode().IsRegular():
		a.Note = "not attached: not a regular file"
	default:
		sv.attachFile(d, &a)
	}
	return a, true
}

// readAttachment reads a regular file's first MaxAttachBytes; binary content is refused. The
// text is redacted before it is cut, from a read long enough that a secret straddling the cut
// is whole when redacted (a cut first would leave the secret's first part in the prompt).
func (sv *Directory) readAttachment(d *sandbox.Dir, a *api.Attachment) {
	margin := 0
	if r := sv.sec.Redactor(); r != nil {
		margin = r.Longest()
	}
	limit := api.MaxAttachBytes + margin
	b, err := d.ReadFileLimit(a.Path, int64(limit)+1)
	if err != nil {
		a.Note = "not attached: " + err.Error()
		return
	}
	more := len(b) > limit // the file goes on past what was read
	if more {
		b = b[:limit]
		for len(b) > 0 && !utf8.Valid(b[len(b)-min(len(b), 3):]) {
			b = b[:len(b)-1] // do not end inside a character
		}
	}
	if bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
		a.Note = "not attached: a binary file"
		return
	}
	a.Content = sv.sec.Redact(string(b))
	if more || len(a.Content) > api.MaxAttachBytes {
		a.Content, a.Truncated = cutText(a.Content, api.MaxAttachBytes), true
		a.Note = fmt.Sprintf("only the first %d KiB of %d bytes are attached", api.MaxAttachBytes>>10, a.Size)
	}
}

// cutText cuts text to at most n bytes, on a character boundary.
func cutText(text string, n int) string {
	if len(text) <= n {
		return text
	}
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	return text[:n]
}

// listFolder lists a mentioned folder's entries (what .gitignore leaves in), one a line.
func listFolder(d *sandbox.Dir, rel string) string {
	var b strings.Builder
	n := 0
	sandbox.WalkFiles(d, rel, sandbox.WalkOptions{}, func(p string, e fs.DirEntry) error {
		if n++; n > 200 {
			b.WriteString("…\n")
			return fs.SkipAll
		}
		b.WriteString(strings.TrimPrefix(p, rel+"/"))
		if e.IsDir() {
			b.WriteString("/")
		}
		b.WriteString("\n")
		if e.IsDir() {
			return fs.SkipDir
		}
		return nil
	})
	return b.String()
}

// AttachmentsText renders attachments for the model, after the prompt's own text.
func AttachmentsText(as []api.Attachment) string {
	var b strings.Builder
	for _, a := range as {
		fmt.Fprintf(&b, "\n\n<attached_file path=%q", a.Path)
		if a.Image != nil {
			fmt.Fprintf(&b, " image=%q", a.Image.MediaType)
		}
		if a.Note != "" {
			fmt.Fprintf(&b, " note=%q", a.Note)
		}
		b.WriteString(">\n")
		if a.Image != nil {
			fmt.Fprintf(&b, "[%d×%d image, sent with this message as image content]\n", a.Image.Width, a.Image.Height)
		}
		if a.Content != "" {
			b.WriteString(a.Content)
			if !strings.HasSuffix(a.Content, "\n") {
				b.WriteString("\n")
			}
		}
		b.WriteString("</attached_file>")
	}
	return b.String()
}

// maxListedFiles bounds the paths ListFiles returns.
const maxListedFiles = 20_000

// ListFiles lists a session's workspace for @path completion, with the walk glob and grep use
// (what .gitignore leaves in, links not followed): slash paths in walk order, folders with a
// trailing slash, at most maxListedFiles. exo's home, when the workspace holds it, is left out,
// and so is a path holding a sealed secret's value (the list goes to the app's screen).
func (sv *Directory) ListFiles(sessionID string) ([]string, error) {
	s, err := sv.Session(sessionID)
	if err != nil {
		return nil, err
	}
	d, err := sandbox.OpenDir(s.Workspace)
	if err != nil {
		return nil, fmt.Errorf("list files: open the workspace: %w", err)
	}
	defer d.Close()
	home := sv.homeBeneath(s.Workspace)
	out := []string{}
	err = sandbox.WalkFiles(d, ".", sandbox.WalkOptions{}, func(p string, e fs.DirEntry) error {
		if p == home {
			return fs.SkipDir // exo's home is not the user's to mention
		}
		if sv.sec.Redact(p) != p { // a name holding a secret's value is not put on a screen
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if e.IsDir() {
			p += "/"
		}
		out = append(out, p)
		if len(out) >= maxListedFiles {
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list files: %w", err)
	}
	return out, nil
}

// homeBeneath returns exo's home as a slash path relative to the workspace ws, or "" when the
// home is not inside it (both with links resolved, since the walk follows none).
func (sv *Directory) homeBeneath(ws string) string {
	home, err1 := filepath.EvalSymlinks(sv.home)
	root, err2 := filepath.EvalSymlinks(ws)
	if err1 != nil || err2 != nil {
		return ""
	}
	rel, err := filepath.Rel(root, home)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}
