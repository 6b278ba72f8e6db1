package cli

import (
	"strings"
	"testing"

	"exo/harness/api"
)

// TestUnreachableIsNoUsageError: an error that says the store did not answer exits 1 with
// "the store is unreachable" first, even where the command would call a failure the caller's
// (an unknown model, an unknown session); other errors stay usage errors.
func TestUnreachableIsNoUsageError(t *testing.T) {
	t.Parallel()
	down := &api.RemoteError{Code: api.CodeUnreachable, Message: "etcd read exo/v1/x: the store is unreachable: context deadline exceeded"}
	err := usageErr(down)
	if exitCode(err) != ExitFailure || !strings.HasPrefix(err.Error(), "the store is unreachable") || strings.Count(err.Error(), "unreachable") != 1 {
		t.Fatalf("exit %d: %v", exitCode(err), err)
	}
	if !api.HasCode(err, api.CodeUnreachable) {
		t.Fatal("the code is lost")
	}
	if err := usageErr(&api.RemoteError{Code: "no_session", Message: "no session"}); exitCode(err) != ExitUsage {
		t.Fatalf("a usage error became %d", exitCode(err))
	}
}
