package service

import (
	"context"
	"encoding/json"
	"strings"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/executor"
)

// Gate decides whether an action another agent asks for may run in a session, with exo's
// executor's hooks and approvals (the user answers in the app; headless refuses).
func (s *Service) Gate(ctx context.Context, req api.GateRequest) (api.GateResult, error) {
	if strings.TrimSpace(req.Tool) == "" {
		return api.GateResult{}, invalidf("no tool named")
	}
	switch req.Default {
	case "", "auto", "ask", "deny":
	default:
		return api.GateResult{}, invalidf("default policy %q: give auto, ask or deny", req.Default)
	}
	if len(req.Args) > 0 && !json.Valid(req.Args) {
		return api.GateResult{}, invalidf("the arguments are not JSON")
	}
	se, err := s.session(req.Session)
	if err != nil {
		return api.GateResult{}, err
	}
	mode, err := s.approvalMode(se, "") // the session's mode, tightened by its project's file
	if err != nil {
		return api.GateResult{}, err
	}
	callID := "gate-" + harness.NewID()
	g, err := s.x.Gate(ctx, executor.GateRequest{Session: se, CallID: callID, Tool: req.Tool, Args: req.Args,
		Summary: s.h.Redact(req.Summary), Default: req.Default, Headless: req.Headless, Approval: mode})
	if err != nil {
		return api.GateResult{}, err
	}
	return api.GateResult{Allowed: g.Allowed, Reason: g.Reason, Args: g.Args, CallID: callID}, nil
}
