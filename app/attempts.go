package app

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/aymanbagabas/go-udiff"

	"exo/harness/api"
	"exo/views"
)

// attemptsStartedMsg carries a set of attempts just started.
type attemptsStartedMsg struct{ set api.AttemptSet }

// scoreboardMsg carries a set's scoreboard to show (or refresh).
type scoreboardMsg struct {
	set api.AttemptSet
	err error
}

// attemptsUsage says how /attempts is written.
const attemptsUsage = "/attempts [@SEQ] model=A,B [executor=X,Y] [check='CMD'] PROMPT, or /attempts to show the scoreboard"

// attemptsSlash is /attempts: with a prompt it starts a set of attempts from the shown
// session (at @SEQ, else its head), one per executor and model pair; alone (or "show") it
// opens the newest set's scoreboard.
func (m *Model) attemptsSlash(args string) tea.Cmd {
	args = strings.TrimSpace(args)
	if args == "" || args == "show" || strings.HasPrefix(args, "show ") {
		ref := strings.TrimSpace(strings.TrimPrefix(args, "show"))
		if ref == "" {
			ref = m.current()
		}
		return m.scoreboardCmd(ref)
	}
	req, err := parseAttempts(args)
	if err != nil {
		return m.say(err.Error(), true)
	}
	req.Session = m.current()
	c := m.c
	return tea.Batch(m.say(fmt.Sprintf("starting %d attempts…", len(req.Pairs())), false), func() tea.Msg {
		set, err := c.StartAttempts(bg, req)
		if err != nil {
			return infoMsg{text: "/attempts: " + err.Error(), err: true}
		}
		return attemptsStartedMsg{set: set}
	})
}

// parseAttempts reads /attempts' words: @SEQ, model=, executor=, check= (quoted when it has
// spaces), then the prompt.
func parseAttempts(args string) (api.AttemptsRequest, error) {
	var req api.AttemptsRequest
	rest := args
	for {
		rest = strings.TrimLeft(rest, " ")
		word, after, quoted := nextWord(rest)
		if k, ok := strings.CutSuffix(word, "="); ok && (k == "model" || k == "executor" || k == "check") && !quoted {
			v, more, q := nextWord(strings.TrimLeft(after, " ")) // "model= a,b": the value after a space
			word, after, quoted = word+v, more, q
		}
		switch {
		case strings.HasPrefix(word, "@") && !quoted:
			seq, err := parseSeq(word)
			if err != nil {
				return req, fmt.Errorf("/attempts: %w", err)
			}
			req.Seq = seq
		case strings.HasPrefix(word, "model="):
			req.Models = splitComma(strings.TrimPrefix(word, "model="))
		case strings.HasPrefix(word, "executor="):
			req.Executors = splitComma(strings.TrimPrefix(word, "executor="))
		case strings.HasPrefix(word, "check="):
			req.Check = strings.TrimPrefix(word, "check=")
		default:
			req.Prompt = strings.TrimSpace(rest)
			if req.Prompt == "" {
				return req, fmt.Errorf("no prompt: %s", attemptsUsage)
			}
			if len(req.Models) == 0 && len(req.Executors) == 0 {
				return req, fmt.Errorf("name the models or executors to compare: %s", attemptsUsage)
			}
			if n := len(req.Pairs()); n > api.MaxAttempts {
				return req, fmt.Errorf("/attempts: %d attempts, at most %d", n, api.MaxAttempts)
			}
			return req, nil
		}
		rest = after
	}
}

// nextWord splits the first word off s: up to a space, a value in quotes (key='a b' or
// key="a b") taken whole; quoted reports a quote was removed.
func nextWord(s string) (word, rest string, quoted bool) {
	var b strings.Builder
	var q rune
	for i, r := range s {
		switch {
		case q != 0 && r == q:
			q = 0
		case q == 0 && (r == '\'' || r == '"'):
			q, quoted = r, true
		case q == 0 && r == ' ':
			return b.String(), s[i:], quoted
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), "", quoted
}

// splitComma splits a comma-separated list, dropping empty entries.
func splitComma(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// onAttemptsStarted shows the attempts streaming side by side (up to four in a row, up to eight
// as a grid; the scoreboard lists them all) and says how to see the scores.
func (m *Model) onAttemptsStarted(set api.AttemptSet) tea.Cmd {
	m.scoreSet = set.ID
	var ids []string
	for _, r := range set.Rows {
		if len(ids) < views.MaxSplit {
			ids = append(ids, r.Session)
		}
	}
	more := ""
	if n := len(set.Rows) - len(ids); n > 0 {
		more = fmt.Sprintf(" (%d more on the scoreboard)", n)
	}
	cmds := []tea.Cmd{m.say(fmt.Sprintf("%s: %d attempts from @%d%s; /attempts shows the scoreboard", set.ID, len(set.Rows), set.AtSeq, more), false)}
	if len(ids) >= 2 {
		m.splitOn, m.splitIDs = true, ids
		m.resize()
		cmds = append(cmds, m.splitCmd(ids))
	}
	return tea.Batch(cmds...)
}

// scoreboardCmd reads a set's scoreboard.
func (m *Model) scoreboardCmd(ref string) tea.Cmd {
	c := m.c
	return func() tea.Msg {
		set, err := c.AttemptSet(bg, ref)
		return scoreboardMsg{set: set, err: err}
	}
}

// onScoreboard opens the scoreboard overlay, or refreshes the one open.
func (m *Model) onScoreboard(msg scoreboardMsg) tea.Cmd {
	if msg.err != nil {
		return m.say("/attempts: "+msg.err.Error(), true)
	}
	sb, open := m.overlay.(*views.Scoreboard)
	if !open {
		if m.overlay != nil {
			return nil // another dialog is up: the scoreboard waits for /attempts
		}
		title := fmt.Sprintf("%s: %q from %s@%d", msg.set.ID, oneLineText(msg.set.Prompt, 40), msg.set.OriginName, msg.set.AtSeq)
		if msg.set.Check != "" {
			title += ", check " + msg.set.Check
		}
		sb = views.NewScoreboard(m.common, title)
		m.overlay, m.scoreSort = sb, -1
		m.resize()
	}
	m.scoreSet, m.score = msg.set.ID, msg.set
	m.showScores(sb)
	return nil
}

// showScores sorts the set's rows by the chosen column and puts them on the scoreboard.
func (m *Model) showScores(sb *views.Scoreboard) {
	rows := append([]api.AttemptRow(nil), m.score.Rows...)
	if m.scoreSort >= 0 && m.scoreSort < len(api.AttemptColumns) {
		_ = api.SortAttempts(rows, api.AttemptColumns[m.scoreSort])
	}
	m.scoreRows = rows
	out := make([]views.ScoreRow, len(rows))
	for i, r := range rows {
		out[i] = views.ScoreRow{Cells: []string{r.Name, r.Runner(), r.Status, r.CheckText(), fmt.Sprint(len(r.Files)), fmt.Sprintf("%.2f", r.Drift),
			fmt.Sprint(r.Steps), fmt.Sprint(r.ToolCalls), fmt.Sprint(r.Tokens), fmt.Sprintf("$%.4f", r.Cost), msShort(r.TTFTMs), msShort(r.WallMs), fmt.Sprint(r.Approvals)},
			Pass: r.Status == api.AttemptDone && (r.Check == nil || r.Check.Passed()),
			Fail: r.Status == api.AttemptFailed || r.Status == api.AttemptInterrupted || r.Check != nil && !r.Check.Passed(),
			Kept: r.Kept}
	}
	sb.SetRows(out, m.scoreSort)
}

// onScoreMsg handles the scoreboard's requests: another sort column, a diff, a keep.
func (m *Model) onScoreMsg(msg tea.Msg) (tea.Cmd, bool) {
	sb, open := m.overlay.(*views.Scoreboard)
	switch msg := msg.(type) {
	case views.ScoreSort:
		if open {
			m.scoreSort = msg.Col
			m.showScores(sb)
		}
		return nil, true
	case views.ScoreOpen:
		if msg.Row >= len(m.scoreRows) {
			return nil, true
		}
		r := m.scoreRows[msg.Row]
		switch {
		case msg.Keep:
			m.overlay = nil
			return m.keepCmd(r, msg.Archive), true
		case msg.Replay:
			m.overlay = nil
			return tea.Batch(m.say("starting a replay…", false), m.replayCmd(m.replayOf(r))), true
		}
		return m.attemptDiffCmd(r), true
	case attemptsStartedMsg:
		return m.onAttemptsStarted(msg.set), true
	case scoreboardMsg:
		return m.onScoreboard(msg), true
	}
	return nil, false
}

// keepCmd keeps an attempt: the set's original session takes its history and files; with
// archive the set's other members are archived in the same step.
func (m *Model) keepCmd(r api.AttemptRow, archive bool) tea.Cmd {
	c := m.c
	return func() tea.Msg {
		res, err := c.KeepAttempt(bg, api.KeepRequest{Attempt: r.Session, Archive: archive})
		if err != nil {
			return infoMsg{text: "keep: " + err.Error(), err: true}
		}
		others := "the others stay as siblings"
		if archive {
			others = fmt.Sprintf("%d others archived", len(res.Archived))
		}
		return infoMsg{text: fmt.Sprintf("%s now continues attempt %s, files included (%s)", res.Session.Name, r.Name, others)}
	}
}

// replayOf is the replay the scoreboard's R asks for: the set's original session's prompts
// (from its start, or for a replay's set from where that replay forked) under the attempt's
// executor and model, checked by the set's check.
func (m *Model) replayOf(r api.AttemptRow) api.ReplayRequest {
	req := api.ReplayRequest{Session: m.score.Origin, Executor: r.Executor, Model: r.Model, Check: m.score.Check}
	if m.score.Replay {
		req.From = m.score.AtSeq
	}
	return req
}

// replayCmd starts a replay; its set then streams and is scored like any attempts'.
func (m *Model) replayCmd(req api.ReplayRequest) tea.Cmd {
	c := m.c
	return func() tea.Msg {
		set, err := c.Replay(bg, req)
		if err != nil {
			return infoMsg{text: "replay: " + err.Error(), err: true}
		}
		return attemptsStartedMsg{set: set}
	}
}

// attemptDiffCmd shows what an attempt changed against its original session's files.
func (m *Model) attemptDiffCmd(r api.AttemptRow) tea.Cmd {
	c, origin := m.c, m.score.Origin
	return func() tea.Msg {
		var b strings.Builder
		for _, p := range r.Files {
			was, err := c.FileAtSnapshot(bg, origin, p)
			if err != nil {
				return conflictDiffMsg{err: err}
			}
			now, err := c.FileAtSnapshot(bg, r.Session, p)
			if err != nil {
				return conflictDiffMsg{err: err}
			}
			b.WriteString(udiff.Unified("a/"+p, "b/"+p, was, now))
		}
		if b.Len() == 0 {
			return conflictDiffMsg{none: r.Name + " changed no file"}
		}
		return conflictDiffMsg{title: "files " + r.Name + " changed", text: b.String()}
	}
}

// scoreboardStale reports whether a batch of notices changes the scoreboard shown.
func (m *Model) scoreboardStale(batch []api.Notice) bool {
	if _, open := m.overlay.(*views.Scoreboard); !open {
		return false
	}
	for _, n := range batch {
		if n.Turn != nil {
			return true
		}
		for _, e := range n.Events {
			if strings.HasPrefix(e.Type, "attempt") || e.Type == api.TypeModelCompleted || e.Type == api.TypeToolStarted {
				return true
			}
		}
	}
	return false
}

// msShort writes milliseconds as a short duration ("-" for none).
func msShort(ms int64) string {
	switch {
	case ms <= 0:
		return "-"
	case ms < 1000:
		return fmt.Sprintf("%dms", ms)
	}
	return fmt.Sprintf("%.1fs", float64(ms)/1000)
}

// oneLineText flattens text to one line of at most n runes.
func oneLineText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
