package views

import (
	"regexp"
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/sahilm/fuzzy"
)

// mentionRows is how many matches the @ completion popup shows.
const mentionRows = 8

// mentionState is the input's @path completion: the workspace's files (folders end with "/"),
// the highlighted match and the mention the user closed the popup on.
type mentionState struct {
	files     []string
	sel       int
	dismissed string
	// memo holds the matches of memoQ, so a key press matches the files once, not once per
	// caller (the app, the key handler and the view each ask); SetFiles clears it.
	memo    []string
	memoQ   string
	memoSet bool
}

// FilesRequestedMsg asks the app for the session's workspace files (the user typed @).
type FilesRequestedMsg struct{}

// SetFiles gives the input the session's workspace files for @ completion, in walk order,
// folders with a trailing slash.
func (in *Input) SetFiles(files []string) {
	in.ment.files, in.ment.sel = files, 0
	in.ment.memo, in.ment.memoSet = nil, false
}

// HasFiles reports whether the input holds a file list (the app fetches one on each new @,
// keeping the last one meanwhile).
func (in *Input) HasFiles() bool { return in.ment.files != nil }

// MentionQuery returns the path typed after an @ just before the cursor; ok is false when the
// cursor is not at the end of a mention (or the user closed the popup on this one).
func (in *Input) MentionQuery() (string, bool) {
	w := in.ta.wordBeforeCursor()
	if !strings.HasPrefix(w, "@") || strings.HasPrefix(w, `@"`) || w == in.ment.dismissed {
		return "", false
	}
	return w[1:], true
}

// MentionMatches returns the files the typed mention completes to, best first: with a folder
// typed ("src/"), only what is inside it; with nothing after the folder, its direct entries (so
// folders can be walked down); else a fuzzy match on the path.
func (in *Input) MentionMatches() []string {
	q, ok := in.MentionQuery()
	if !ok || len(in.ment.files) == 0 {
		return nil
	}
	if in.ment.memoSet && in.ment.memoQ == q {
		return in.ment.memo
	}
	out := in.matchFiles(q)
	in.ment.memo, in.ment.memoQ, in.ment.memoSet = out, q, true
	return out
}

// matchFiles computes MentionMatches for the query q.
func (in *Input) matchFiles(q string) []string {
	base, pat := "", q
	if i := strings.LastIndexByte(q, '/'); i >= 0 {
		base, pat = q[:i+1], q[i+1:]
	}
	var cands []string
	for _, f := range in.ment.files {
		rest, inside := strings.CutPrefix(f, base)
		if !inside || rest == "" {
			continue
		}
		if pat == "" && strings.Contains(strings.TrimSuffix(rest, "/"), "/") {
			continue // only the folder's direct entries
		}
		cands = append(cands, f)
	}
	if pat == "" {
		return cands[:min(len(cands), mentionRows)]
	}
	ms := fuzzy.Find(pat, trimAll(cands, base))
	out := make([]string, 0, min(len(ms), mentionRows))
	for _, m := range ms[:min(len(ms), mentionRows)] {
		out = append(out, cands[m.Index])
	}
	return out
}

// trimAll returns the strings with prefix cut from each.
func trimAll(ss []string, prefix string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.TrimPrefix(s, prefix)
	}
	return out
}

// mentionKey handles a key while the @ popup shows matches; ok is false when the key is not
// the popup's.
func (in *Input) mentionKey(k string, matches []string) bool {
	switch {
	case k == "esc":
		in.ment.dismissed = in.ta.wordBeforeCursor()
	case k == "up":
		in.ment.sel = (in.ment.sel + len(matches) - 1) % len(matches)
	case k == "down":
		in.ment.sel = (in.ment.sel + 1) % len(matches)
	case k == "tab" || k == "enter":
		p := matches[min(in.ment.sel, len(matches)-1)]
		if strings.ContainsAny(p, " \t") {
			p = `"` + p + `"`
		}
		in.ta.replaceWordBeforeCursor("@" + p)
		if !strings.HasSuffix(p, "/") {
			in.ta.Insert(" ")
		}
		in.ment.sel = 0
	default:
		return false
	}
	return true
}

// mentionRE finds @path mentions in prompt text.
var mentionRE = regexp.MustCompile(`(^|\s)(@("[^"]*"|\S+))`)

// highlightMentions styles the @path mentions of one wrapped chunk of the prompt.
func (in *Input) highlightMentions(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	st := in.styles()
	return mentionRE.ReplaceAllStringFunc(s, func(m string) string {
		i := strings.IndexByte(m, '@')
		return m[:i] + st.Text.Mention.Render(m[i:])
	})
}

// mentionPopup renders the @ completion box at most w cells wide ("" when nothing matches).
func (in *Input) mentionPopup(w int) string {
	matches := in.MentionMatches()
	if len(matches) == 0 || w < 8 {
		return ""
	}
	st := in.styles()
	in.ment.sel = min(in.ment.sel, len(matches)-1)
	body := make([]string, len(matches))
	for i, p := range matches {
		label := truncateLeft(p, max(w-6, 4))
		if i == in.ment.sel {
			body[i] = st.Select.Render(label)
		} else if strings.HasSuffix(p, "/") {
			body[i] = st.Text.Strong.Render(label)
		} else {
			body[i] = st.Text.Normal.Render(label)
		}
	}
	return dialog(st, "files · tab complete · esc close", body, w, len(body)+2)
}

// truncateLeft keeps the end of a path that is too wide, with "…" in front.
func truncateLeft(s string, w int) string {
	r := []rune(s)
	if widthOf(s) <= w || len(r) <= w {
		return s
	}
	return "…" + string(r[len(r)-w+1:])
}

// mentionBinding describes the popup's keys for help.
var mentionBinding = key.NewBinding(key.WithKeys("@"), key.WithHelp("@", "attach a file"))
