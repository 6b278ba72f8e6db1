package store

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestUnreachableErrors: the errors by which etcd's client and members say no quorum answered
// in time are the store being unreachable; refusals are not.
func TestUnreachableErrors(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{status.Error(codes.Unavailable, "connection refused"), true},
		{status.Error(codes.DeadlineExceeded, "context deadline exceeded"), true},
		{status.Error(codes.Unknown, "context deadline exceeded"), true}, // a member's own wait ran out
		{fmt.Errorf("etcd read k: %w", status.Error(codes.Unknown, "context deadline exceeded")), true},
		{context.DeadlineExceeded, true},
		{rpctypes.ErrNoLeader, true},
		{status.Error(codes.Unknown, "etcdserver: mvcc: database space exceeded"), false},
		{status.Error(codes.InvalidArgument, "etcdserver: request is too large"), false},
		{errors.New("context deadline exceeded somewhere else entirely, not a status"), false},
	} {
		if got := isUnreachable(c.err); got != c.want {
			t.Errorf("isUnreachable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
