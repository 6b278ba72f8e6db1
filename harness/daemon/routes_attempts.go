package daemon

import (
	"context"

	"exo/harness/api"
)

// attemptRoutes maps attempt sets: starting them, their scoreboard, keeping one.
func (s *Server) attemptRoutes() {
	handle(s, api.MethodStartAttempts, s.svc.StartAttempts)
	handle(s, api.MethodAttemptSet, func(ctx context.Context, q api.Ref) (api.AttemptSet, error) { return s.svc.AttemptSet(ctx, q.Ref) })
	handle(s, api.MethodKeepAttempt, s.svc.KeepAttempt)
	handle(s, api.MethodReplay, s.svc.Replay)
}
