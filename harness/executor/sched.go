package executor

import "context"

// slot waits for a free model-call slot (the scheduler caps concurrent model calls across all
// sessions, subagents included) and returns the function that frees it.
func (x *Executor) slot(ctx context.Context) (func(), error) {
	select {
	case x.slots <- struct{}{}:
		return func() { <-x.slots }, nil
	case <-ctx.Done():
		return func() {}, ctx.Err()
	}
}
