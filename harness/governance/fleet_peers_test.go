package governance

import (
	"fmt"
	"reflect"
	"testing"

	"exo/harness"
	"exo/store/etcdtest"
)

// TestFleetIncludesPeers runs two daemons on one embedded etcd cluster: each one's Fleet (by
// replay and through a Tracker) has the other's session too, marked with its node, with its
// drift and the conflict the other daemon recorded; a session removed on its daemon leaves the
// other's fleet.
func TestFleetIncludesPeers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	open := func(node string) *harness.Harness {
		h, err := harness.Open(t.TempDir(), harness.Options{NoSync: true, Store: fmt.Sprintf("etcd://%s/fleet?node=%s", c.Endpoints[0], node)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		return h
	}
	ha, hb := open("a"), open("b")
	alpha := newSession(t, ha, "alpha", "/p", nil)
	beta := newSession(t, hb, "beta", "/p", &Scope{Allow: []string{"src/**"}, Budget: 2})
	mustAppend(t, ha, alpha.ID, snapshot("src/x.go"))
	mustAppend(t, hb, beta.ID, snapshot("src/x.go", "docs/y.md"))
	for _, h := range []*harness.Harness{ha, hb} {
		if _, err := RecordConflicts(h); err != nil {
			t.Fatal(err)
		}
	}
	fl, err := Fleet(ha)
	if err != nil {
		t.Fatal(err)
	}
	if len(fl) != 2 || fl[0].ID != alpha.ID || fl[0].Node != "" || fl[1].ID != beta.ID || fl[1].Node != "b" {
		t.Fatalf("fleet of a: %+v", fl)
	}
	if b := fl[1]; b.Drift.Total != 0.6 || b.Drift.Level != LevelMid || len(b.Conflicts) != 1 || b.Conflicts[0].WithName != "alpha" || b.Project != "/p" {
		t.Fatalf("beta in a's fleet: %+v", b)
	}
	if len(fl[0].Conflicts) != 1 || fl[0].Conflicts[0].WithName != "beta" {
		t.Fatalf("alpha in a's fleet: %+v", fl[0])
	}
	tracked, err := NewTracker(ha).Fleet()
	if err != nil || !reflect.DeepEqual(tracked, fl) {
		t.Fatalf("tracker's fleet differs: %+v %v", tracked, err)
	}
	if fb, err := Fleet(hb); err != nil || len(fb) != 2 || fb[0].ID != beta.ID || fb[1].ID != alpha.ID || fb[1].Node != "a" {
		t.Fatalf("fleet of b: %+v %v", fb, err)
	}
	if _, err := hb.RemoveSession(beta.ID); err != nil {
		t.Fatal(err)
	}
	if fl, err := Fleet(ha); err != nil || len(fl) != 1 || fl[0].ID != alpha.ID {
		t.Fatalf("fleet of a after beta's removal: %+v %v", fl, err)
	}
}
