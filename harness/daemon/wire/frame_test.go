package wire

import (
	"encoding/json"
	"testing"
	"time"

	"exo/harness/api"
)

// TestStoreStateCrossesTheWire: the daemon's word that its store does not answer (and answers
// again) reaches a client through a frame's JSON, as the app's banner needs.
func TestStoreStateCrossesTheWire(t *testing.T) {
	since := time.Date(2026, 11, 29, 2, 31, 5, 0, time.UTC)
	for _, st := range []api.StoreState{{Since: since, Why: "no quorum"}, {Up: true, Since: since}} {
		b, err := json.Marshal(NoticeFrame(api.Notice{Store: &st}))
		if err != nil {
			t.Fatal(err)
		}
		var f Frame
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		n := Notice(f)
		if n.Store == nil || *n.Store != st {
			t.Fatalf("%s decoded as %+v", b, n.Store)
		}
	}
	if n := Notice(NoticeFrame(api.Notice{Session: "s"})); n.Store != nil {
		t.Fatalf("a notice without the store's state got one: %+v", n.Store)
	}
}
