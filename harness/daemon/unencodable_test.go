package daemon

import (
	"bufio"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"exo/harness/api"
	"exo/store"
)

// TestDamagedEventAnswered: an answer or a stream frame carrying an event whose data is no
// longer JSON is answered with an error naming the event and the way out, not with nothing
// (the client then saw only "EOF"); a stream ends with that error as its last frame.
func TestDamagedEventAnswered(t *testing.T) {
	t.Parallel()
	good := api.Event{Branch: "s1", Seq: 3, Type: "note", Data: json.RawMessage(`{"a":1}`)}
	bad := api.Event{Branch: "s1", Seq: 4, Type: "note", Data: json.RawMessage(`{"a":`)}

	w := httptest.NewRecorder()
	writeJSON(w, struct{ Events []api.Event }{[]api.Event{good, bad}})
	var re api.RemoteError
	if err := json.Unmarshal(w.Body.Bytes(), &re); err != nil || w.Code < 400 {
		t.Fatalf("answer %d %q: not an error (%v)", w.Code, w.Body.String(), err)
	}
	if !strings.Contains(re.Message, "s1@4 is damaged (its data is not JSON)") || !strings.Contains(re.Message, "exo doctor") {
		t.Fatalf("the error does not name the event and the way out: %q", re.Message)
	}
	if api.ErrorCode(&re) != api.ErrorCode(store.ErrCorrupt) {
		t.Fatalf("code %q, want the store's damage code %q", api.ErrorCode(&re), api.ErrorCode(store.ErrCorrupt))
	}

	w = httptest.NewRecorder()
	writeJSON(w, []api.Event{good})
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"seq":3`) {
		t.Fatalf("a sound answer: %d %q", w.Code, w.Body.String())
	}

	rec := httptest.NewRecorder()
	sw := newStreamWriter(rec)
	if err := sw.add(frame{Session: "s1", Events: []api.Event{good}}); err != nil {
		t.Fatalf("add: %v", err)
	}
	if err := sw.add(frame{Session: "s1", Events: []api.Event{bad}}); err == nil || !strings.Contains(err.Error(), "s1@4") {
		t.Fatalf("adding the damaged event: %v", err)
	}
	_ = sw.flush()
	var frames []frame
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		var f frame
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			t.Fatalf("frame %q: %v", sc.Text(), err)
		}
		frames = append(frames, f)
	}
	if len(frames) != 2 || len(frames[0].Events) != 1 || frames[1].Error == nil || !strings.Contains(frames[1].Error.Message, "s1@4 is damaged") {
		t.Fatalf("frames: %+v", frames)
	}
}
