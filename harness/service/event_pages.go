package service

import (
	"context"

	"exo/harness/api"
)

// EventPages hands events from..to of a branch's whole history to fn a page at a time, in
// memory the next page reuses (api.EventPager).
func (s *Service) EventPages(ctx context.Context, branch string, from, to uint64, fn func([]api.Event) error) error {
	return s.h.BranchEventPages(branch, from, to, func(evs []api.Event) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fn(evs)
	})
}
