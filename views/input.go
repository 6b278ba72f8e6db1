package views

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Paste thresholds above which a paste becomes a chip.
const (
	pasteChipLines = 8    // pasteChipLines is the line count that makes a chip.
	pasteChipBytes = 1200 // pasteChipBytes is the size that makes a chip.
)

// InputKeyMap holds the input's own bindings; editing keys are the textarea's.
type InputKeyMap struct {
	Send     key.Binding // Send sends the prompt.
	Newline  key.Binding // Newline inserts a line break.
	HistPrev key.Binding // HistPrev recalls the previous prompt.
	HistNext key.Binding // HistNext recalls the next prompt.
	Complete key.Binding // Complete completes a slash command.
	Editor   key.Binding // Editor opens the prompt in $VISUAL or $EDITOR.
	// Steer sends the prompt into the running turn, taken at its next step (enter queues it
	// for when the turn ends).
	Steer key.Binding
	// PasteImage attaches the clipboard's image (the app reads it with the clipboard tool found).
	PasteImage key.Binding
}

// DefaultInputKeyMap returns the input's default bindings.
func DefaultInputKeyMap() InputKeyMap {
	return InputKeyMap{
		Send:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send")),
		Newline:    key.NewBinding(key.WithKeys("alt+enter", "shift+enter", "ctrl+j"), key.WithHelp("alt+enter", "newline")),
		HistPrev:   key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "previous prompt")),
		HistNext:   key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "next prompt")),
		Complete:   key.NewBinding(key.WithKeys("tab", "right"), key.WithHelp("tab", "complete /command")),
		Editor:     key.NewBinding(key.WithKeys("ctrl+g", "ctrl+o"), key.WithHelp("ctrl+g", "edit in $EDITOR")),
		Steer:      key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "steer the running turn")),
		PasteImage: key.NewBinding(key.WithKeys("alt+v"), key.WithHelp("alt+v", "paste the clipboard's image")),
	}
}

// Input is the multi-line prompt editor with history, paste chips and
// slash command completion.
type Input struct {
	base
	Keys    InputKeyMap // Keys are the pane's bindings.
	ta      editor
	history []string
	hpos    int    // hpos is the history position; len(history) is the draft.
	draft   string // draft is the unsent text saved while browsing history.
	pastes  []string
	compSel int // compSel is the highlighted completion.
	// custom are the project's and user's own slash commands, completed after the built-ins.
	custom []SlashCommand
	// histPastes keeps the pasted texts of history entries with chips.
	histPastes  map[int][]string
	draftPastes []string
	// target names the session a prompt goes to, shown in the title while several are on screen.
	target string
	// notice replaces the empty input's placeholder (e.g. the session was deleted elsewhere).
	notice string
	// ment is the @path completion.
	ment mentionState
	// queued are the session's prompts waiting for the running turn, oldest first.
	queued []QueuedLine
	// busy is set while a turn runs on the session.
	busy bool
}

// SetTarget names the session the prompt goes to ("" hides it: only one session is shown).
func (in *Input) SetTarget(name string) { in.target = name }

// SetNotice shows text in place of the empty input's placeholder ("" restores it): what the user
// should know before typing, such as the session being gone.
func (in *Input) SetNotice(text string) { in.notice = text }

// NewInput returns an empty, focused-ready input pane.
func NewInput(c *Common) *Input {
	in := &Input{base: base{common: c}, Keys: DefaultInputKeyMap(), ta: newEditor()}
	in.ta.decorate = in.highlightMentions
	return in
}

// hintLines is 1 when the pane is tall enough for the completion line.
// MaxInputLines is the most text lines the input grows to before it scrolls.
const MaxInputLines = 8

// Height returns the pane height the input wants at w cells wide: its frame, the hint line and
// the text's lines (two at least, MaxInputLines at most), so it grows as a prompt gets longer.
func (in *Input) Height(w int) int {
	lines := in.ta.visualLines(w - 2 - 2) // the frame's sides and the "› " prompt
	return min(max(lines, 2), MaxInputLines) + 3 + in.queueLines()
}

func (in *Input) hintLines() int {
	if in.height >= 4 {
		return 1
	}
	return 0
}

// Value returns the raw editor text (chips not expanded).
func (in *Input) Value() string { return in.ta.Value() }

// SetValue replaces the editor text.
func (in *Input) SetValue(s string) { in.ta.SetValue(s) }

// SetEdited replaces the text with what came back from the external editor (paste chips were
// expanded when it left, so they are dropped).
func (in *Input) SetEdited(s string) {
	in.ta.SetValue(strings.TrimRight(s, "\n"))
	in.pastes = nil
}

// DesiredHeight is the pane height that shows the whole text at width w,
// between min and max (the app grows the input as the prompt grows).
func (in *Input) DesiredHeight(w, minH, maxH int) int {
	lines := len(in.ta.view(max(w-2, 1), 1<<20, "› ", "  ", nil))
	return min(max(lines+2+1, minH), maxH)
}

// Reset empties the editor and drops pasted chips.
func (in *Input) Reset() {
	in.ta.Reset()
	in.pastes, in.compSel, in.ment.dismissed = nil, 0, ""
}

// SetHistory replaces the prompt history, oldest first.
func (in *Input) SetHistory(h []string) {
	in.history = append([]string(nil), h...)
	in.hpos, in.histPastes = len(in.history), nil
}

// History returns the prompt history, oldest first.
func (in *Input) History() []string { return in.history }

// Update handles keys and pastes; it sends SubmitMsg, SlashCommandMsg or
// ShellCommandMsg when the user presses enter.
func (in *Input) Update(msg tea.Msg) (Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.PasteMsg:
		return in, in.paste(msg.Content)
	case tea.KeyPressMsg:
		if ms := in.MentionMatches(); len(ms) > 0 && in.mentionKey(msg.String(), ms) {
			return in, nil
		}
		if cmd, ok := in.handleKey(msg); ok {
			return in, cmd
		}
		in.ta.handle(msg)
		in.clampCompletion()
		if q, ok := in.MentionQuery(); ok && (!in.HasFiles() || q == "" && msg.Text == "@") {
			return in, emit(FilesRequestedMsg{}) // each new mention lists the workspace again (the agent may have made files)
		}
	}
	return in, nil
}

// handleKey handles the keys the input owns; ok is false for editing keys.
func (in *Input) handleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	comps := completions(in.ta.Value(), in.custom)
	switch {
	case key.Matches(msg, in.Keys.Editor):
		return emit(EditPromptMsg{Text: in.expandChips(in.ta.Value())}), true
	case key.Matches(msg, in.Keys.Newline):
		in.ta.newline()
		return nil, true
	case key.Matches(msg, in.Keys.Steer):
		return in.submitAs(true), true
	case key.Matches(msg, in.Keys.HistPrev) && len(in.queued) > 0 && in.ta.Value() == "":
		return emit(TakeBackQueuedMsg{}), true
	case key.Matches(msg, in.Keys.Send):
		if len(comps) > 0 && "/"+comps[in.compSel].Name != in.ta.Value() {
			in.complete(comps)
			return nil, true
		}
		return in.submit(), true
	case key.Matches(msg, in.Keys.Complete) && len(comps) > 0:
		in.complete(comps)
		return nil, true
	case key.Matches(msg, in.Keys.HistPrev) && len(comps) > 1:
		in.compSel = (in.compSel + len(comps) - 1) % len(comps)
		return nil, true
	case key.Matches(msg, in.Keys.HistNext) && len(comps) > 1:
		in.compSel = (in.compSel + 1) % len(comps)
		return nil, true
	case key.Matches(msg, in.Keys.HistPrev) && in.ta.Line() == 0:
		in.recall(-1)
		return nil, true
	case key.Matches(msg, in.Keys.HistNext) && in.ta.Line() == in.ta.LineCount()-1:
		in.recall(1)
		return nil, true
	}
	return nil, false
}

// complete replaces the typed command with the highlighted completion.
func (in *Input) complete(comps []SlashCommand) {
	c := comps[min(in.compSel, len(comps)-1)]
	v := "/" + c.Name
	if c.Args != "" {
		v += " "
	}
	in.ta.SetValue(v)
	in.compSel = 0
}

// clampCompletion keeps the completion highlight in range.
func (in *Input) clampCompletion() {
	if n := len(completions(in.ta.Value(), in.custom)); in.compSel >= n {
		in.compSel = 0
	}
}

// submit sends the editor text as the right message and clears the editor.
func (in *Input) submit() tea.Cmd { return in.submitAs(false) }

// submitAs is submit; steer marks a prompt to steer the running turn.
func (in *Input) submitAs(steer bool) tea.Cmd {
	raw := in.ta.Value()
	if strings.TrimSpace(raw) == "" {
		return nil
	}
	text := in.expandChips(raw)
	if len(in.pastes) > 0 {
		if in.histPastes == nil {
			in.histPastes = map[int][]string{}
		}
		in.histPastes[len(in.history)] = in.pastes
	}
	in.history = append(in.history, raw)
	in.hpos, in.draft, in.pastes = len(in.history), "", nil
	in.ta.Reset()
	trimmed := strings.TrimSpace(text)
	switch {
	case strings.HasPrefix(trimmed, "//"):
		return emit(SubmitMsg{Text: strings.Replace(text, "//", "/", 1)})
	case strings.HasPrefix(trimmed, "/"):
		name, args := parseSlash(trimmed)
		return emit(SlashCommandMsg{Name: name, Args: args})
	case strings.HasPrefix(trimmed, "!"):
		if cmd := strings.TrimSpace(trimmed[1:]); cmd != "" {
			return emit(ShellCommandMsg{Command: cmd})
		}
		return nil
	}
	return emit(SubmitMsg{Text: text, Steer: steer})
}

// recall moves through the history by dir, keeping the unsent draft.
func (in *Input) recall(dir int) {
	next := in.hpos + dir
	if next < 0 || next > len(in.history) {
		return
	}
	if in.hpos == len(in.history) {
		in.draft, in.draftPastes = in.ta.Value(), in.pastes
	}
	in.hpos = next
	if next == len(in.history) {
		in.ta.SetValue(in.draft)
		in.pastes = in.draftPastes
		return
	}
	in.ta.SetValue(in.history[next])
	in.pastes = in.histPastes[next]
}

// paste inserts a paste, collapsing a large one into a chip.
func (in *Input) paste(content string) tea.Cmd {
	content = strings.ReplaceAll(content, "\r\n", "\n")
	lines := strings.Count(strings.TrimSuffix(content, "\n"), "\n") + 1 // a final newline ends the last line
	if lines < pasteChipLines && len(content) < pasteChipBytes {
		in.ta.Insert(content)
		return nil
	}
	in.pastes = append(in.pastes, content)
	in.ta.Insert(fmt.Sprintf("[pasted %s lines #%d]", thousands(lines), len(in.pastes)))
	return nil
}

// chipRE matches paste chips in the editor text.
var chipRE = regexp.MustCompile(`\[pasted [0-9,]+ lines #([0-9]+)\]`)

// expandChips replaces paste chips with the pasted text.
func (in *Input) expandChips(s string) string {
	if len(in.pastes) == 0 {
		return s
	}
	return chipRE.ReplaceAllStringFunc(s, func(m string) string {
		n, err := strconv.Atoi(chipRE.FindStringSubmatch(m)[1])
		if err != nil || n < 1 || n > len(in.pastes) {
			return m
		}
		return in.pastes[n-1]
	})
}

// thousands formats n with comma separators: 1,234.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// ShortHelp lists the main input bindings.
func (in *Input) ShortHelp() []key.Binding {
	return []key.Binding{in.Keys.Send, in.Keys.Newline, in.Keys.HistPrev, in.Keys.Complete}
}

// FullHelp lists all input bindings.
func (in *Input) FullHelp() [][]key.Binding {
	return [][]key.Binding{{in.Keys.Send, in.Keys.Newline, in.Keys.HistPrev, in.Keys.HistNext, in.Keys.Complete, in.Keys.Editor, mentionBinding, in.Keys.Steer, takeBackBinding, in.Keys.PasteImage}}
}
