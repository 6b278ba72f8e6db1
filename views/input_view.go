package views

import "strings"

// View renders the editor and, below it, the completions or a hint.
func (in *Input) View() string {
	iw, ih := in.inner()
	if in.width < 4 || in.height < 3 {
		iw, ih = in.width, in.height
	}
	ql := min(in.queueLines(), max(ih-in.hintLines()-1, 0))
	eh := max(ih-in.hintLines()-ql, 1)
	body := append(in.queueView(iw)[in.queueLines()-ql:], in.editorLines(iw, eh)...)
	eh += ql
	if in.hintLines() > 0 {
		for len(body) < eh {
			body = append(body, "")
		}
		body = append(body, in.hint(iw))
	}
	title := "Prompt"
	if in.target != "" {
		title = "Prompt → " + plain(in.target)
	}
	return frame(in.styles(), in.focused, title, in.mode(), body, in.width, in.height)
}

// mode names what enter will do with the current text.
func (in *Input) mode() string {
	v := strings.TrimSpace(in.ta.Value())
	switch {
	case strings.HasPrefix(v, "!"):
		return "shell"
	case strings.HasPrefix(v, "/"):
		return "command"
	}
	return ""
}

// hint renders the completion line: matching commands, or key hints.
func (in *Input) hint(w int) string {
	st := in.styles()
	comps := completions(in.ta.Value(), in.custom)
	if len(comps) == 0 {
		switch {
		case in.busy && len(in.queued) > 0:
			return st.Text.Muted.Render(truncate("enter queue · ctrl+s steer now · ↑ take back queued · ctrl+c cancel turn", w))
		case in.busy:
			return st.Text.Muted.Render(truncate("enter queue for after the turn · ctrl+s steer it now · ctrl+c cancel", w))
		}
		return st.Text.Muted.Render(truncate("enter send · alt+enter newline · / commands · ! shell", w))
	}
	parts := make([]string, 0, len(comps)+1)
	for i, c := range comps {
		label := "/" + c.Name
		if i == in.compSel {
			label = st.Select.Render(label)
		} else {
			label = st.Text.Normal.Render(label)
		}
		parts = append(parts, label)
	}
	if len(comps) == 1 || in.compSel < len(comps) {
		c := comps[in.compSel]
		parts = append(parts, st.Text.Muted.Render(strings.TrimSpace(c.Args+" "+c.Help)))
	}
	return truncate(strings.Join(parts, " "), w)
}

// editorLines renders the editor text, or the placeholder when empty.
func (in *Input) editorLines(w, h int) []string {
	st := in.styles()
	prompt := st.Conv.UserLabel.Render("› ")
	if !in.focused {
		prompt = st.Text.Muted.Render("› ")
	}
	if in.ta.Value() == "" {
		hint := st.Text.Dim.Render("ask, /command or !shell")
		if in.notice != "" {
			hint = st.Conv.Violation.Render(in.notice)
		}
		ph := prompt + hint
		if in.focused {
			ph = prompt + st.Select.Render(" ") + hint
		}
		return []string{truncate(ph, w)}
	}
	var cursor func(string) string
	if in.focused {
		cursor = func(s string) string { return st.Select.Render(stripToPlain(s)) }
	}
	return in.ta.view(w, h, prompt, "  ", cursor)
}

// Completions returns the slash commands matching what is typed.
func (in *Input) Completions() []SlashCommand { return completions(in.ta.Value(), in.custom) }

// SetCustomCommands sets the custom slash commands (from .exo/commands and the user's folder)
// that complete after the built-in ones.
func (in *Input) SetCustomCommands(cmds []SlashCommand) { in.custom = cmds }

// IsCustomCommand reports whether name is one of the custom slash commands.
func (in *Input) IsCustomCommand(name string) bool {
	for _, c := range in.custom {
		if c.Name == name {
			return true
		}
	}
	return false
}

// PopupView renders the completions as a box at most w cells wide, for the
// app to draw just above the input; it is empty when nothing completes.
func (in *Input) PopupView(w int) string {
	if pop := in.mentionPopup(w); pop != "" {
		return pop
	}
	comps := in.Completions()
	if len(comps) == 0 || w < 8 {
		return ""
	}
	st := in.styles()
	body := make([]string, len(comps))
	for i, c := range comps {
		name := fit("/"+c.Name+" "+c.Args, 16)
		line := st.Text.Strong.Render(name) + " " + st.Text.Muted.Render(c.Help)
		if i == in.compSel {
			line = st.Select.Render(stripToPlain(name + " " + c.Help))
		}
		body[i] = line
	}
	return dialog(st, "commands", body, w, len(body)+2)
}
