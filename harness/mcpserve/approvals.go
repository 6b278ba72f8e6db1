package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"

	"exo/harness"
	"exo/harness/api"
)

// headless reports whether nobody can answer an approval of the session: no exo app shows it
// and the caller did not ask to wait. The caller never answers approvals itself.
func (t *tools) headless(ctx context.Context, sessionID string, wait bool) (bool, error) {
	if wait {
		return false, nil
	}
	act, err := t.c.Activity(ctx)
	if err != nil {
		return false, err
	}
	return act.Clients[sessionID] == 0, nil
}

// gate asks the daemon whether the calling agent's action may run in a session, under the
// session's PreToolUse hooks and approval policy for tool (def when its rules do not name
// tool); an approval waits for the user in the app, or is refused when nobody can answer. A
// refusal is an error that says why and how the user can let it through.
func (t *tools) gate(ctx context.Context, s *harness.Session, tool, def, summary string, args any, wait bool) (json.RawMessage, error) {
	headless, err := t.headless(ctx, s.ID, wait)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	g, err := t.c.Gate(ctx, api.GateRequest{Session: s.ID, Tool: tool, Args: raw, Summary: summary, Default: def, Headless: headless})
	if err != nil {
		return nil, err
	}
	if g.Allowed {
		return g.Args, nil
	}
	hint := ""
	if headless {
		hint = fmt.Sprintf("; the user can open the session in exo (exo attach %s) and you can call again with wait_for_approval", s.Name)
	}
	return nil, fmt.Errorf("refused: %s%s", g.Reason, hint)
}
