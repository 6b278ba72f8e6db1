package views

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"exo/themes"
)

// sampleThinking is a conversation where the model reasoned before answering and reasons again.
func sampleThinking() []ConvItem {
	return []ConvItem{
		{Kind: KindUser, Text: "What's the weather in Florence, Italy?"},
		{Kind: KindThinking, Text: "The user is asking for weather information for Florence, Italy.\nI have access to a weather function that takes a location parameter.\n\nI have all the required parameters to make the function call."},
		{Kind: KindTool, Tool: "weather", ArgsSummary: `{"location":"Florence, Italy"}`, Status: ToolOK, Output: "40 C\n"},
		{Kind: KindAssistant, Text: "It is **40 °C** in Florence right now."},
		{Kind: KindUser, Text: "And in Rome?"},
	}
}

func init() {
	goldenPanes["conversation-thinking"] = func(c *Common, _ int) interface{ View() string } {
		p := NewConversation(c)
		p.SetItems(sampleThinking())
		p.AppendThinking("**Checking Rome**\n\nThe user now wants Rome. I will call the weather tool again with ")
		p.AppendThinking("\"Rome, Italy\" as the location, as before.")
		p.Focus()
		return sizer{p}
	}
	goldenPanes["conversation-thinkingopen"] = func(c *Common, _ int) interface{ View() string } {
		p := NewConversation(c)
		p.SetItems(sampleThinking())
		p.selectTool(1)
		p.toggle()
		p.Focus()
		return sizer{p}
	}
}

func TestThinkingStreamsThenGivesWayToTheAnswer(t *testing.T) {
	c := NewConversation(NewCommon(themes.Dark()))
	c.SetSize(70, 20)
	c.AppendThinking("Let me think")
	c.AppendThinking(" about the weather tool.")
	if n := c.Len(); n != 1 || c.Item(0).Kind != KindThinking || !c.Item(0).Streaming || c.Item(0).Text != "Let me think about the weather tool." {
		t.Fatalf("items: %d %+v", n, c.Item(0))
	}
	if v := ansi.Strip(c.View()); !strings.Contains(v, "thinking") || !strings.Contains(v, "about the weather tool.") {
		t.Fatalf("streaming thinking not shown:\n%s", v)
	}
	c.AppendDelta("It is 40 C.")
	if c.Len() != 2 || c.Item(0).Streaming || c.Item(1).Kind != KindAssistant || !c.Item(1).Streaming {
		t.Fatalf("the answer did not close the thinking block: %+v %+v", c.Item(0), c.Item(1))
	}
	v := ansi.Strip(c.View())
	if !strings.Contains(v, "thought · 1 line · enter expands") || strings.Contains(v, "│ Let me think") {
		t.Fatalf("a finished thinking block is not collapsed:\n%s", v)
	}
}

func TestThinkingBlockExpandsAndCollapses(t *testing.T) {
	c := NewConversation(NewCommon(themes.Dark()))
	c.SetSize(80, 30)
	c.SetItems(sampleThinking())
	c.Update(press("["))
	c.Update(press("["))
	if c.SelectedTool() != 1 {
		t.Fatalf("selected %d, want the thinking block", c.SelectedTool())
	}
	c.Update(press("enter"))
	v := ansi.Strip(c.View())
	if !strings.Contains(v, "I have all the required parameters") || !strings.Contains(v, "enter collapses") {
		t.Fatalf("expanded thinking:\n%s", v)
	}
	c.Update(press("enter"))
	if v := ansi.Strip(c.View()); strings.Contains(v, "I have all the required parameters") {
		t.Fatalf("collapsed again still shows the text:\n%s", v)
	}
}

// BenchmarkThinkingStreamRender measures a frame while a long reasoning streams: it must not
// grow with the reasoning's length.
func BenchmarkThinkingStreamRender(b *testing.B) {
	for _, n := range []int{1_000, 40_000} {
		b.Run(fmt.Sprintf("deltas=%dk", n/1000), func(b *testing.B) {
			c := NewConversation(NewCommon(themes.Dark()))
			c.SetSize(100, 40)
			for i := 0; i < n; i++ {
				c.AppendThinking("word ")
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.AppendThinking("more ")
				_ = c.View()
			}
		})
	}
}
