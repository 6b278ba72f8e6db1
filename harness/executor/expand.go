package executor

import (
	"strings"

	"exo/harness"
)

// expand applies a custom command to a prompt "/name args": the command's prompt replaces the
// text, the source names the command, and model is the command's model, if any.
func (x *Executor) expand(sessionID, text, source string) (string, string, string, error) {
	if x.opts.Expand == nil || !strings.HasPrefix(strings.TrimSpace(text), "/") {
		return text, source, "", nil
	}
	s, err := x.h.Session(sessionID)
	if err != nil {
		return text, source, "", err
	}
	prompt, model, ok := x.opts.Expand(s, text)
	if !ok {
		return text, source, "", nil
	}
	name, _, _ := strings.Cut(strings.TrimSpace(text), " ")
	if _, err := x.h.Model(model); model != "" && err != nil {
		model = "" // a model exo does not know (a Claude model id in a Claude Code command): the session's
	}
	return prompt, "command " + name, model, nil
}

// setTurnModel chooses the model of a session's next turns ("" goes back to its setting).
func (x *Executor) setTurnModel(sessionID, model string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.models == nil {
		x.models = map[string]string{}
	}
	if model == "" {
		delete(x.models, sessionID)
	} else {
		x.models[sessionID] = model
	}
}

// turnModel is the model a turn of s uses: one chosen for it, else the session's setting.
func (x *Executor) turnModel(s *harness.Session) string {
	x.mu.Lock()
	defer x.mu.Unlock()
	if m := x.models[s.ID]; m != "" {
		return m
	}
	return s.Settings["model"]
}
