package views

// sampleImage is a conversation whose prompt attached an image, a text and a file named like an
// image that is not one.
func sampleImage() []ConvItem {
	return []ConvItem{
		{Kind: KindUser, Text: "what is wrong in @shot.png? compare with @notes.md and @fake.png",
			Attached: "image shot.png (PNG 1280×800, 312.4 KB)\nnotes.md (1.2 KB)\nfake.png: not attached: named like an image, but its bytes are not a PNG, JPEG, GIF or WebP image"},
		{Kind: KindAssistant, Text: "The screenshot shows the **status bar** cut at the right edge."},
	}
}

func init() {
	goldenPanes["conversation-image"] = func(c *Common, _ int) interface{ View() string } {
		p := NewConversation(c)
		p.SetItems(sampleImage())
		p.Focus()
		return sizer{p}
	}
}
