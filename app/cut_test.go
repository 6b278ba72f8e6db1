package app

import (
	"encoding/json"
	"testing"

	"exo/harness/api"
	"exo/views"
)

// TestCutAnswerShowsAsCut: an answer recorded as cut reaches the conversation pane with its cut
// mark's label.
func TestCutAnswerShowsAsCut(t *testing.T) {
	st := api.NewSessionState("b")
	data, _ := json.Marshal(api.ModelCompleted{Model: "m", Text: "half an answer", Cut: api.CutStream})
	st.Apply(api.Event{Branch: "b", Seq: 1, Type: api.TypeModelCompleted, Data: data})
	items := convItems(st)
	if len(items) != 1 || items[0].Kind != views.KindAssistant || items[0].Text != "half an answer" || items[0].Cut != "cut: stream lost" {
		t.Fatalf("items: %+v", items)
	}
}
