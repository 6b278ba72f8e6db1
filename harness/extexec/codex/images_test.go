package codex

import (
	"encoding/json"
	"testing"
)

// TestTurnParamsCarryLocalImages: turn/start gives the prompt's text, then each image as a
// localImage input naming its file.
func TestTurnParamsCarryLocalImages(t *testing.T) {
	pr := &proc{thread: "th1"}
	b, _ := json.Marshal(pr.turnParams("look", "/state/home/exo-images/abc.png"))
	want := `{"input":[{"text":"look","text_elements":[],"type":"text"},{"path":"/state/home/exo-images/abc.png","type":"localImage"}],"threadId":"th1"}`
	if string(b) != want {
		t.Fatalf("params:\n%s\nwant:\n%s", b, want)
	}
}
