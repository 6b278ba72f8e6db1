package app

import (
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// slash runs a slash command typed in the input.
func (m *Model) slash(name, args string) tea.Cmd {
	switch name {
	case "new":
		return m.newSessionCmd()
	case "fork":
		seq, err := parseSeq(args)
		if err != nil {
			return m.say("/fork [SEQ]: "+err.Error(), true)
		}
		return m.forkCmd(seq)
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
	case "help":
		return m.showHelp()
	case "quit", "exit":
		return m.quit()
	case "compact", "scope":
		return m.say("/"+name+" is not available in this build yet", true)
	}
	return m.say("unknown command /"+name+"; try /help", true)
}

// parseSeq parses an optional event number ("" is 0: the head).
func parseSeq(s string) (uint64, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "@")
	if s == "" {
		return 0, nil
	}
	return strconv.ParseUint(s, 10, 64)
}
