package store

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"exo/store/etcdtest"
)

// The operational tests against etcd server processes (Debian's etcd-server): what the
// embedded-server tests check, against the binary users run. Each that kills, pauses, fills
// or compacts a cluster starts its own.

// realOnly skips a test in -short mode and starts nothing.
func realOnly(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts etcd server processes")
	}
	etcdtest.EtcdBinary(t)
	t.Parallel()
}

// TestRealEtcdTLSAndAuth: a member serving clients only over TLS with client certificates
// generated for the test, with auth on (user and password).
func TestRealEtcdTLSAndAuth(t *testing.T) {
	realOnly(t)
	dir := t.TempDir()
	certs := etcdtest.NewCerts(t, dir)
	c := etcdtest.StartBinaryWith(t, 1, etcdtest.Options{TLS: &certs, User: "exo", Password: "pa55-w0rd"})
	testTLSAndAuth(t, dir, certs, c.Endpoints[0])
}

// TestRealEtcdMemberKilledMidAppend: the leader of three etcd processes is killed while a
// daemon appends.
func TestRealEtcdMemberKilledMidAppend(t *testing.T) {
	realOnly(t)
	c := etcdtest.StartBinary(t, 3)
	leader := func() int {
		i, err := c.Leader()
		if err != nil {
			t.Fatal(err)
		}
		return i
	}
	testMemberKilledMidAppend(t, c.Endpoints, leader, c.Kill)
}

// TestRealEtcdPartitionedDaemon: the member a daemon talks to is stopped (SIGSTOP: its
// process holds its ports and answers nothing, as a machine cut off the network), so the
// daemon is partitioned from the two others, which keep quorum; then it continues.
func TestRealEtcdPartitionedDaemon(t *testing.T) {
	realOnly(t)
	c := etcdtest.StartBinary(t, 3)
	testPartitionedDaemon(t, c.Endpoints, c.Pause, c.Resume)
}

// TestRealEtcdWatchRelistsAfterCompaction: a watch behind a compaction catches up by
// re-listing (bounded: what is there, once), then goes on live.
func TestRealEtcdWatchRelistsAfterCompaction(t *testing.T) {
	realOnly(t)
	c := etcdtest.StartBinary(t, 1)
	testWatchRelistsAfterCompaction(t, c.Endpoints)
}

// TestRealEtcdNoSpace fills an etcd process's small quota: the refused append says NOSPACE
// and how to recover, nothing acknowledged is lost, and after what an operator does
// (compact, defrag, alarm disarm) the same daemon appends again, without a restart.
//
// The member commits its backend after every write (BackendBatchLimit 1): with etcd's default
// of a commit every 100 ms, its quota check lags what was written meanwhile, and appends as
// fast as a build without the race detector makes them went 3.4 MiB past the 4 MiB quota
// before the first refusal (25 of them acknowledged), more than the 2 MiB of history the
// operator can reclaim; the append after the operator's steps was then refused again.
func TestRealEtcdNoSpace(t *testing.T) {
	realOnly(t)
	c := etcdtest.StartBinaryWith(t, 1, etcdtest.Options{QuotaBytes: 4 << 20, BackendBatchLimit: 1})
	cli, err := c.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx := context.Background()
	// History an operator can reclaim: one key rewritten, its old values kept until compaction.
	junk := strings.Repeat("j", 256<<10)
	for i := range 8 {
		if _, err := cli.Put(ctx, "junk", fmt.Sprint(i, junk)); err != nil {
			t.Fatal(err)
		}
	}
	s := openNode(t, c.Endpoints, "quota", "n", 0)
	if _, err := s.NewBranch("m"); err != nil {
		t.Fatal(err)
	}
	noise := make([]byte, 150<<10) // random: events are stored compressed
	r := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(r.Uint32())
	}
	big := Record{Type: "blob", Actor: "t", Data: fmt.Appendf(nil, `{"x":%q}`, base64.StdEncoding.EncodeToString(noise))}
	var acked uint64
	for range 200 {
		var evs []Event
		if evs, err = s.Append("m", big); err != nil {
			break
		}
		acked = evs[0].Seq
	}
	if !errors.Is(err, ErrNoSpace) || !strings.Contains(err.Error(), "etcdctl alarm disarm") {
		t.Fatalf("append past the quota: %v (acked %d)", err, acked)
	}
	if head, _, err := s.Head("m"); err != nil || head != acked {
		t.Fatalf("head %d after NOSPACE, acknowledged %d: %v", head, acked, err)
	}
	// The operator: compact, defragment, disarm.
	st, err := cli.Status(ctx, c.Endpoints[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Compact(ctx, st.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Defragment(ctx, c.Endpoints[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.AlarmDisarm(ctx, &clientv3.AlarmMember{MemberID: st.Header.MemberId, Alarm: 1}); err != nil { // NOSPACE
		t.Fatal(err)
	}
	evs, err := s.Append("m", rec(1))
	if err != nil || evs[0].Seq != acked+1 {
		t.Fatalf("append after the operator freed space: %v %v", evs, err)
	}
	if rep, err := s.VerifyBranch("m"); err != nil || !rep.OK() || rep.Events != int(acked)+1 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
}

// TestRealEtcdLeaseTTLs: a daemon opened with a lease of 3 s or 30 s is granted that TTL by
// the cluster, and its keep-alive renews it: the 3 s lease outlives two of its TTLs with the
// daemon's branch still owned, and the 30 s lease's remaining TTL goes back up (the client
// renews a lease every third of its TTL). What a 30 s lease costs a takeover is measured by
// BenchmarkRealEtcdTakeover.
func TestRealEtcdLeaseTTLs(t *testing.T) {
	c := sharedReal(t)
	t.Parallel()
	cli, err := c.Client()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() }) // after the parallel subtests
	for _, ttl := range []time.Duration{3 * time.Second, 30 * time.Second} {
		t.Run(ttl.String(), func(t *testing.T) {
			t.Parallel()
			s := openNode(t, c.Endpoints, realNS("lease-"+ttl.String()), "n", ttl)
			if _, err := s.NewBranch("m"); err != nil {
				t.Fatal(err)
			}
			_, lease := ownerLease(t, cli, s, "m")
			ctx := context.Background()
			ttlOf := func() *clientv3.LeaseTimeToLiveResponse {
				r, err := cli.TimeToLive(ctx, lease)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			if got := ttlOf().GrantedTTL; got != int64(ttl/time.Second) {
				t.Fatalf("granted TTL %d s, configured %v", got, ttl)
			}
			if ttl == 3*time.Second {
				// etcd reports the remaining TTL in whole seconds, truncated: renewed every
				// second, a 3 s lease reads 2 nearly all the time and 1 only in the moment
				// before a renewal lands, which a poll may miss (a whole-package run without
				// the race detector missed it for 4.5 s). Outliving two TTLs is what shows the
				// renewals.
				end := time.Now().Add(2 * ttl)
				for time.Now().Before(end) { // an observation window, not a wait for something
					if r := ttlOf(); r.TTL <= 0 {
						t.Fatalf("the lease ran out: %+v", r)
					}
					time.Sleep(250 * time.Millisecond)
				}
				if _, err := s.Append("m", rec(1)); err != nil {
					t.Fatalf("append after two TTLs: %v", err)
				}
				return
			}
			// Renewed: the remaining TTL, falling by a third between keep-alives, rises again.
			low := ttlOf().TTL
			waitFor(t, "a keep-alive", 3*ttl/2, func() bool {
				r := ttlOf().TTL
				if r > low {
					return true
				}
				low = min(low, r)
				return false
			})
		})
	}
}
