package sandbox

import (
	"strings"
	"testing"
)

func TestMarkerFoundAtEverySplit(t *testing.T) {
	stream := "out\x1eput\x1eEXOzz;1\x1f more \x1eEXOabc123;42\x1ftail\x1eEX"
	for cut := 0; cut <= len(stream); cut++ {
		var m markerScanner
		var out strings.Builder
		var found []marker
		emit := func(p []byte) { out.Write(p) }
		got := func(mk marker) { found = append(found, mk) }
		m.scan([]byte(stream[:cut]), emit, got)
		m.scan([]byte(stream[cut:]), emit, got)
		if len(found) != 1 || found[0] != (marker{nonce: "abc123", code: 42}) {
			t.Fatalf("cut %d: markers %+v", cut, found)
		}
		// The incomplete marker at the very end stays held back until more arrives.
		if want := "out\x1eput\x1eEXOzz;1\x1f more tail"; out.String() != want {
			t.Fatalf("cut %d: output %q, want %q", cut, out.String(), want)
		}
	}
}
