package views_test

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/themes"
	"exo/views"
)

// A conversation pane is fed items and streamed deltas; it renders only
// what is in view, at exactly its size.
func ExampleConversation() {
	common := views.NewCommon(themes.Dark())
	conv := views.NewConversation(common)
	conv.SetSize(40, 7)
	conv.Append(views.ConvItem{Kind: views.KindUser, Text: "hi"})
	conv.Update(views.StreamDeltaMsg{Text: "Hello **there**."})
	conv.Update(views.StreamDoneMsg{})
	fmt.Println(strings.TrimRight(ansi.Strip(conv.View()), " "))
	// Output:
	// ╭─Conversation─────────────────────────╮
	// │› hi                                  │
	// │                                      │
	// │● assistant                           │
	// │Hello there.                          │
	// │                                      │
	// ╰──────────────────────────────────────╯
}

// The timeline reads rows through a source, so a long history costs
// nothing until a row is in view; keys become request messages.
func ExampleTimeline() {
	tl := views.NewTimeline(views.NewCommon(themes.Light()))
	tl.SetSize(40, 5)
	tl.SetSource(views.TimelineRows{
		{Seq: 1, Type: "session.created", Summary: "created"},
		{Seq: 2, Type: "invocation.received", Actor: "user", Summary: "hi"},
	})
	_, cmd := tl.Update(tea.KeyPressMsg{Code: 'f', Text: "f"})
	fmt.Printf("%#v\n", cmd())
	// Output:
	// views.ForkRequest{Seq:0x2, Branch:""}
}
