package app

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"exo/harness/api"
)

// replayUsage says how /replay is written.
const replayUsage = "/replay [@SEQ] executor=X model=M [check='CMD'] [yes]"

// replaySlash is /replay: the shown session's recorded prompts re-run, turn by turn, under
// another executor or model in a fork from its start (or @SEQ), scored against the original.
func (m *Model) replaySlash(args string) tea.Cmd {
	req, err := parseReplay(args)
	if err != nil {
		return m.say(err.Error(), true)
	}
	req.Session = m.current()
	return tea.Batch(m.say("starting a replay…", false), m.replayCmd(req))
}

// parseReplay reads /replay's words: @SEQ, executor=, model=, check= (quoted when it has
// spaces) and yes (approve the tool calls the original did not answer), in any order.
func parseReplay(args string) (api.ReplayRequest, error) {
	var req api.ReplayRequest
	rest := strings.TrimSpace(args)
	for rest != "" {
		word, after, quoted := nextWord(rest)
		if k, ok := strings.CutSuffix(word, "="); ok && !quoted && (k == "model" || k == "executor" || k == "check") {
			v, more, q := nextWord(strings.TrimLeft(after, " "))
			word, after, quoted = word+v, more, q
		}
		switch {
		case strings.HasPrefix(word, "@") && !quoted:
			seq, err := parseSeq(word)
			if err != nil {
				return req, fmt.Errorf("/replay: %w", err)
			}
			req.From = seq
		case strings.HasPrefix(word, "executor="):
			req.Executor = strings.TrimPrefix(word, "executor=")
		case strings.HasPrefix(word, "model="):
			req.Model = strings.TrimPrefix(word, "model=")
		case strings.HasPrefix(word, "check="):
			req.Check = strings.TrimPrefix(word, "check=")
		case word == "yes" && !quoted:
			req.AutoApprove = true
		default:
			return req, fmt.Errorf("/replay: %q is not understood: %s", word, replayUsage)
		}
		rest = strings.TrimLeft(after, " ")
	}
	if req.Executor == "" && req.Model == "" {
		return req, fmt.Errorf("/replay: name the executor or the model to replay under: %s", replayUsage)
	}
	return req, nil
}
