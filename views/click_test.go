package views

import (
	"testing"

	"exo/themes"
)

func TestClicks(t *testing.T) {
	c := NewCommon(themes.Dark())
	tl := NewTimeline(c)
	tl.SetSize(40, 10)
	tl.SetSource(sampleRows(100))
	_ = tl.View()
	if msg, ok := run(tl.Click(3, 1)).(TimelineSelectMsg); !ok || msg.Seq != 93 {
		t.Errorf("click on the first row selected %#v", msg)
	}

	s := NewSiblings(c)
	s.SetSize(60, 10)
	s.SetRows(sampleSiblings())
	_ = s.View()
	if cmd := s.Click(2, 2); cmd != nil {
		t.Error("first click on a row switched")
	}
	if run(s.Click(2, 2)) != (SwitchSession{ID: "s2"}) {
		t.Error("second click did not switch")
	}

	conv := NewConversation(c)
	conv.SetSize(80, 60)
	conv.SetItems(sampleConversation())
	_ = conv.View()
	for y := 1; y < 59; y++ {
		if conv.lineItems[y-1] == 2 {
			conv.Click(0, y)
			break
		}
	}
	if conv.SelectedTool() != 2 || !conv.Expanded(2) {
		t.Errorf("click on a tool block: selected %d expanded %v", conv.SelectedTool(), conv.Expanded(2))
	}
}
