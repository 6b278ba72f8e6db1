package service

import (
	"context"
	"testing"

	"exo/store/etcdtest"
)

// TestDoctorDescribesTheCluster: on an etcd store the doctor names the cluster (members, leader,
// revision, space against the quota, this daemon's node and lease), not a local database.
func TestDoctorDescribesTheCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-member etcd cluster")
	}
	t.Parallel()
	c := etcdtest.Start(t, 3, etcdtest.Options{})
	_, s := daemonOn(t, c.Endpoints[:1], "alpha")
	rep, err := s.Doctor(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	cl := rep.Cluster
	if cl == nil {
		t.Fatal("no cluster in the report")
	}
	if len(cl.Members) != 3 || cl.Leader == "" || cl.Node != "alpha" || cl.Namespace != "team" || cl.Revision == 0 ||
		cl.Lease == 0 || cl.TTLSeconds != 10 || cl.LeftSeconds <= 0 || cl.DBBytes <= 0 || cl.QuotaBytes < cl.DBBytes || !cl.Reachable {
		t.Fatalf("cluster: %+v", cl)
	}
	for _, m := range cl.Members {
		if m.Error != "" || m.Version == "" {
			t.Fatalf("member: %+v", m)
		}
	}
	// A follower goes down, not the leader, nor member 0 (the daemon's only endpoint): the
	// report describes one member down without waiting for an election, which on a loaded
	// machine (a race build, a starved cluster) took longer than the request timeout.
	victim := 2
	if c.Leader() == 2 {
		victim = 1
	}
	c.Kill(victim)
	rep, err = s.Doctor(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	down := 0
	for _, m := range rep.Cluster.Members {
		if m.Error != "" {
			down++
		}
	}
	if down != 1 || !rep.Cluster.Reachable {
		t.Fatalf("one member down: %+v", rep.Cluster)
	}
}
