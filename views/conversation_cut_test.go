package views

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"exo/themes"
)

// sampleCut is a conversation whose answer was cut by Ctrl-C while it streamed.
func sampleCut() []ConvItem {
	return []ConvItem{
		{Kind: KindUser, Text: "Explain how the store appends an event."},
		{Kind: KindThinking, Text: "The user wants the append path: bbolt transaction, hash chain."},
		{Kind: KindAssistant, Text: "An append is **one bbolt transaction**: the event is encoded, its hash chained to the previous", Cut: "cut: cancelled"},
		{Kind: KindNotice, Text: "turn cancelled: cancelled by the user while the model was answering"},
	}
}

func init() {
	goldenPanes["conversation-cut"] = func(c *Common, _ int) interface{ View() string } {
		p := NewConversation(c)
		p.SetItems(sampleCut())
		p.Focus()
		return sizer{p}
	}
}

// TestCutAnswerShowsItsMark: an answer cut off keeps its text and shows a cut mark by its label;
// a whole answer shows none.
func TestCutAnswerShowsItsMark(t *testing.T) {
	c := NewConversation(NewCommon(themes.Dark()))
	c.SetSize(70, 20)
	c.SetItems(sampleCut())
	v := ansi.Strip(c.View())
	if !strings.Contains(v, "● assistant ✂ cut: cancelled") || !strings.Contains(v, "one bbolt transaction") {
		t.Fatalf("the cut answer or its mark is not shown:\n%s", v)
	}
	c.SetItems(sampleThinking())
	if v := ansi.Strip(c.View()); strings.Contains(v, "✂") {
		t.Fatalf("a whole answer shows a cut mark:\n%s", v)
	}
}
