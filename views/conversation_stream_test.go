package views

import "testing"

// TestReplaceStreamKeepsItemsAndReplacesWhatStreamed: the answer so far replaces the reasoning
// and text streamed after the items set, whatever pieces had arrived, and later pieces add to it.
func TestReplaceStreamKeepsItemsAndReplacesWhatStreamed(t *testing.T) {
	c := NewConversation(NewCommon(nil))
	c.SetItems([]ConvItem{{Kind: KindUser, Text: "tell me"}})
	c.AppendThinking("pondering")
	c.AppendDelta("word7 word8")
	c.ReplaceStream("pondering the fox", "word0 word1 word7 word8")
	c.AppendDelta(" word9")
	if c.Len() != 3 {
		t.Fatalf("%d items, want the prompt, the reasoning and the answer", c.Len())
	}
	if it := c.Item(0); it.Kind != KindUser || it.Text != "tell me" {
		t.Fatalf("the committed item changed: %+v", it)
	}
	if it := c.Item(1); it.Kind != KindThinking || it.Text != "pondering the fox" || it.Streaming {
		t.Fatalf("reasoning: %+v", it)
	}
	if it := c.Item(2); it.Kind != KindAssistant || it.Text != "word0 word1 word7 word8 word9" || !it.Streaming {
		t.Fatalf("answer: %+v", it)
	}
	c.ReplaceStream("", "only text")
	if c.Len() != 2 || c.Item(1).Text != "only text" {
		t.Fatalf("after a second replay: %d items, %+v", c.Len(), c.Item(c.Len()-1))
	}
}
