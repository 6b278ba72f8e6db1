package app

import (
	"net/url"
	"path/filepath"
	"strings"
)

// imageExts are the names of the image files a pasted path turns into a mention.
var imageExts = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true}

// pastedPath reads a paste that is one path, as terminals paste a file dropped on them or a
// copied file: quoted ('…' or "…"), a file:// URL, or with backslash-escaped spaces. ok is
// false for anything else (text with spaces that is not quoted, several lines).
func pastedPath(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, "\n\t") {
		return "", false
	}
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	} else if strings.HasPrefix(s, "file://") {
		u, err := url.Parse(s)
		if err != nil || (u.Host != "" && u.Host != "localhost") {
			return "", false
		}
		s = u.Path
	} else {
		s = strings.ReplaceAll(s, `\ `, "\x00")
		if strings.Contains(s, " ") {
			return "", false
		}
		s = strings.ReplaceAll(s, "\x00", " ")
	}
	if !filepath.IsAbs(s) && !strings.HasPrefix(s, "./") {
		return "", false
	}
	return filepath.Clean(s), true
}

// imagePaste turns a pasted path to an image file into an @mention of it when it lies in the
// session's workspace (the daemon reads and checks it on send, as any mention); a path outside
// is not read by the app and says so. handled is false for a paste that is no image path.
func (m *Model) imagePaste(content string) (mention, note string, handled bool) {
	p, ok := pastedPath(content)
	if !ok || !imageExts[strings.ToLower(filepath.Ext(p))] || m.session == nil || m.session.Workspace == "" {
		return "", "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(m.session.Workspace, p)
	}
	rel, err := filepath.Rel(m.session.Workspace, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", "pasted " + filepath.Base(p) + ": an image outside the workspace is not attached; copy it into the workspace and mention it with @", true
	}
	rel = filepath.ToSlash(rel)
	if strings.Contains(rel, " ") {
		return `@"` + rel + `" `, "", true
	}
	return "@" + rel + " ", "", true
}
