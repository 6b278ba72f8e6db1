package app

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// slash runs a slash command typed in the input.
func (m *Model) slash(name, args string) tea.Cmd {
	switch name {
	case "new":
		return m.newSessionCmd()
	case "resume":
		return m.resumeCmd()
	case "fork":
		seq, err := parseSeq(args)
		if err != nil {
			return m.say("/fork [SEQ]: "+err.Error(), true)
		}
		return m.forkCmd(seq, "")
	case "rewind":
		seq, err := parseSeq(args)
		if err != nil || seq == 0 {
			return m.say("/rewind SEQ: give the event number to go back to (see the timeline)", true)
		}
		return m.rewindPlanCmd(seq)
	case "model":
		if args == "" {
			return m.say("/model NAME: one of the registered models (exo model ls)", true)
		}
		return m.setModelCmd(args)
	case "executor":
		return m.executorCmd(strings.TrimSpace(args))
	case "help":
		return m.showHelp()
	case "quit", "exit":
		return m.quit()
	case "scope":
		return m.scopeCmd(args)
	case "budget":
		return m.budgetCmd(args)
	case "attempts":
		return m.attemptsSlash(args)
	case "replay":
		return m.replaySlash(args)
	case "compact":
		id, c := m.current(), m.c
		return func() tea.Msg {
			rep, err := c.Compact(bg, id)
			if err != nil {
				return infoMsg{text: "/compact: " + err.Error(), err: true}
			}
			return infoMsg{text: rep.String()}
		}
	}
	if m.input.IsCustomCommand(name) {
		return m.submit(strings.TrimSpace("/" + name + " " + args)) // the executor expands it
	}
	return m.say("unknown command /"+name+"; try /help", true)
}

// parseSeq parses an optional event number ("" is 0: the head).
func parseSeq(s string) (uint64, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "@")
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not an event number (see the timeline)", s)
	}
	return n, nil
}

// scopeCmd shows the session's scope, or sets it from globs ("!glob" denies).
func (m *Model) scopeCmd(args string) tea.Cmd {
	id, c := m.current(), m.c
	return func() tea.Msg {
		cur, err := c.Scope(bg, id)
		if err != nil {
			return infoMsg{text: err.Error(), err: true}
		}
		if strings.TrimSpace(args) == "" {
			return infoMsg{text: "scope: " + cur.String()}
		}
		next := cur
		next.Allow, next.Deny = nil, nil
		for _, g := range strings.Fields(args) {
			if strings.HasPrefix(g, "!") {
				next.Deny = append(next.Deny, g[1:])
			} else {
				next.Allow = append(next.Allow, g)
			}
		}
		set, err := c.SetScope(bg, id, next, "set with /scope")
		if err != nil {
			return infoMsg{text: "/scope: " + err.Error(), err: true}
		}
		return infoMsg{text: "scope: " + set.String()}
	}
}
