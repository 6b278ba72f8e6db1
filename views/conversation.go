package views

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// ConversationKeyMap holds the conversation's bindings.
type ConversationKeyMap struct {
	ScrollKeyMap
	Toggle   key.Binding // Toggle expands or collapses the selected tool or thinking block.
	NextTool key.Binding // NextTool selects the next tool or thinking block.
	PrevTool key.Binding // PrevTool selects the previous tool or thinking block.
	Live     key.Binding // Live leaves the time-travel preview.
	Copy     key.Binding // Copy puts the selected block, or the newest answer, on the clipboard.
	CopyCode key.Binding // CopyCode puts the newest answer's last code block on the clipboard.
}

// DefaultConversationKeyMap returns the conversation's default bindings.
func DefaultConversationKeyMap() ConversationKeyMap {
	return ConversationKeyMap{
		ScrollKeyMap: DefaultScrollKeyMap(),
		Toggle:       key.NewBinding(key.WithKeys("enter", "space"), key.WithHelp("enter", "expand tool")),
		NextTool:     key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next tool")),
		PrevTool:     key.NewBinding(key.WithKeys("["), key.WithHelp("[", "prev tool")),
		Live:         key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "leave preview")),
		Copy:         key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy block/answer")),
		CopyCode:     key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "copy code block")),
	}
}

// convEntry is an item with its render cache and view state.
type convEntry struct {
	item     ConvItem
	ver      int              // ver changes whenever the item changes.
	expanded bool             // expanded shows a tool block's full output.
	selected bool             // selected marks the selected tool block.
	grown    bool             // grown is true while Text only grew since the last render.
	text     *strings.Builder // text accumulates streamed deltas without copying.
	md       *mdStream        // md renders assistant markdown block by block (assistant items only).
	lines    []string         // lines is the cached rendering.
	key      renderKey        // key is what lines were rendered for.
}

// renderKey identifies a cached rendering.
type renderKey struct{ w, ver, gen, frame int }

// anchor is a scroll position: a line within an item.
type anchor struct{ item, line int }

// Conversation is the pane showing the turns of one session. It renders
// only the items in view, caching each by (width, version, theme).
type Conversation struct {
	base
	Keys  ConversationKeyMap // Keys are the pane's bindings.
	title string
	// tailTitle cuts a title too wide for the frame at its head, not its tail (a split view's
	// attempts differ only by their names' ends).
	tailTitle bool
	empty     string // empty is what an empty conversation says ("" means "no messages yet").
	entries   []*convEntry
	md        mdRenderers
	top       anchor // top is the first visible line when not following.
	follow    bool   // follow keeps the view at the bottom as content arrives.
	sel       int    // sel is the selected tool block, or -1.
	frame     int    // frame is the spinner frame.
	preview   uint64 // preview is the seq being previewed, 0 when live.
	shown     [2]int // shown is the range of items drawn by the last View.
	// lineItems maps each line drawn by the last View to its item.
	lineItems []int
}

// NewConversation returns an empty conversation pane that follows the bottom.
func NewConversation(c *Common) *Conversation {
	return &Conversation{base: base{common: c}, Keys: DefaultConversationKeyMap(), title: "Conversation", follow: true, sel: -1}
}

// SetTitle sets the frame title (e.g. the session name in split view).
func (c *Conversation) SetTitle(t string) { c.title = oneLine(plain(t)) }

// KeepTitleTail makes a title too wide for the frame lose its head rather than its tail.
func (c *Conversation) KeepTitleTail(on bool) { c.tailTitle = on }

// frameTitle is the title as the frame shows it.
func (c *Conversation) frameTitle() string {
	room := c.width - 4 // the frame's corners, and a border cell on each side of the title
	if w := ansi.StringWidth(c.title); c.tailTitle && room > 1 && w > room {
		return "…" + ansi.TruncateLeft(c.title, w-room+1, "")
	}
	return c.title
}

// SetEmptyText sets what the pane says while the conversation is empty (wrapped to the pane;
// "" restores "no messages yet"): e.g. how to start when no model is registered.
func (c *Conversation) SetEmptyText(t string) { c.empty = t }

// SetItems replaces all items, e.g. on a session switch or a preview, and
// shows the end. Entries whose item is unchanged at the same position keep
// their rendering, so scrubbing the timeline re-renders only what differs.
func (c *Conversation) SetItems(items []ConvItem) {
	keep := 0
	for keep < len(items) && keep < len(c.entries) && c.entries[keep].text == nil && c.entries[keep].item == items[keep] {
		keep++
	}
	c.entries = c.entries[:keep]
	c.sel, c.top, c.follow = -1, anchor{}, true
	for _, e := range c.entries {
		if e.selected {
			e.selected = false
			e.ver++
		}
	}
	c.Append(items[keep:]...)
}

// Append adds items at the end.
func (c *Conversation) Append(items ...ConvItem) {
	for _, it := range items {
		c.entries = append(c.entries, &convEntry{item: it, ver: 1})
	}
}

// SetItem replaces item i (e.g. a tool call that finished).
func (c *Conversation) SetItem(i int, it ConvItem) {
	if i < 0 || i >= len(c.entries) {
		return
	}
	e := c.entries[i]
	e.item, e.text, e.grown = it, nil, false
	e.ver++
}

// Len returns the number of items.
func (c *Conversation) Len() int { return len(c.entries) }

// Item returns item i.
func (c *Conversation) Item(i int) ConvItem {
	e := c.entries[i]
	if e.text != nil {
		e.item.Text = e.text.String()
	}
	return e.item
}

// AppendDelta appends streamed text to the streaming assistant turn at the
// end, starting one if there is none; reasoning streamed before it is done.
func (c *Conversation) AppendDelta(text string) {
	c.appendStream(KindAssistant, text)
}

// AppendThinking appends streamed reasoning to the streaming thinking block
// at the end, starting one if there is none.
func (c *Conversation) AppendThinking(text string) {
	c.appendStream(KindThinking, text)
}

// appendStream grows the streaming item of kind at the end, closing a
// streaming item of the other kind first.
func (c *Conversation) appendStream(kind ConvKind, text string) {
	n := len(c.entries)
	if n == 0 || c.entries[n-1].item.Kind != kind || !c.entries[n-1].item.Streaming {
		c.FinishStream()
		c.Append(ConvItem{Kind: kind, Streaming: true})
		n = len(c.entries)
	}
	e := c.entries[n-1]
	if e.text == nil {
		e.text = &strings.Builder{}
		e.text.WriteString(e.item.Text)
	}
	e.text.WriteString(text)
	e.item.Text = e.text.String()
	e.ver++
}

// ReplaceStream replaces what streamed after the last items set (the reasoning and answer of
// the model call under way) with that call's reasoning and text from their start: what a
// client that attaches mid-answer is sent, whatever pieces it had shown before.
func (c *Conversation) ReplaceStream(thinking, text string) {
	n := len(c.entries)
	for n > 0 && c.entries[n-1].text != nil { // streamed entries, never set as items
		n--
	}
	c.entries = c.entries[:n]
	if c.sel >= n {
		c.sel = -1
	}
	if thinking != "" {
		c.appendStream(KindThinking, thinking)
	}
	if text != "" {
		c.appendStream(KindAssistant, text)
	}
}

// FinishStream marks the streaming assistant turn complete.
func (c *Conversation) FinishStream() {
	if n := len(c.entries); n > 0 && c.entries[n-1].item.Streaming {
		c.entries[n-1].item.Streaming = false
		c.entries[n-1].ver++
	}
}

// SetPreview shows the "preview as of seq" banner; the app supplies the
// items as of that seq through SetItems.
func (c *Conversation) SetPreview(seq uint64) { c.preview = seq }

// ClearPreview returns to the live view.
func (c *Conversation) ClearPreview() { c.preview = 0 }

// Preview returns the previewed seq and whether a preview is shown.
func (c *Conversation) Preview() (uint64, bool) { return c.preview, c.preview > 0 }

// Following reports whether the view follows the bottom.
func (c *Conversation) Following() bool { return c.follow }

// ScrollToBottom jumps to the end and follows new content.
func (c *Conversation) ScrollToBottom() { c.follow = true }

// Update handles keys, the wheel, spinner ticks and streaming messages.
func (c *Conversation) Update(msg tea.Msg) (Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if c.preview > 0 && key.Matches(msg, c.Keys.Live) {
			return c, emit(ExitPreviewMsg{})
		}
		if key.Matches(msg, c.Keys.Copy) {
			if r, ok := c.copyBlock(); ok {
				return c, emit(r)
			}
			return c, nil
		}
		if key.Matches(msg, c.Keys.CopyCode) {
			if r, ok := c.copyCode(); ok {
				return c, emit(r)
			}
			return c, nil
		}
		c.handleKey(msg)
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			c.Scroll(-3)
		case tea.MouseWheelDown:
			c.Scroll(3)
		}
	case SpinnerTickMsg:
		c.frame++
	case StreamDeltaMsg:
		c.AppendDelta(msg.Text)
	case StreamThinkingMsg:
		c.AppendThinking(msg.Text)
	case StreamDoneMsg:
		c.FinishStream()
	}
	return c, nil
}

// handleKey maps a key press to scrolling or tool block actions.
func (c *Conversation) handleKey(msg tea.KeyPressMsg) {
	k := c.Keys
	_, h := c.inner()
	page := max(h-1, 1)
	switch {
	case key.Matches(msg, k.Up):
		c.Scroll(-1)
	case key.Matches(msg, k.Down):
		c.Scroll(1)
	case key.Matches(msg, k.PageUp):
		c.Scroll(-page)
	case key.Matches(msg, k.PageDown):
		c.Scroll(page)
	case key.Matches(msg, k.Top):
		c.follow, c.top = false, anchor{}
	case key.Matches(msg, k.Bottom):
		c.follow = true
	case key.Matches(msg, k.NextTool):
		c.selectTool(1)
	case key.Matches(msg, k.PrevTool):
		c.selectTool(-1)
	case key.Matches(msg, k.Toggle):
		c.toggle()
	}
}

// ShortHelp lists the main conversation bindings.
func (c *Conversation) ShortHelp() []key.Binding {
	return []key.Binding{c.Keys.Down, c.Keys.Up, c.Keys.Bottom, c.Keys.PrevTool, c.Keys.Toggle}
}

// FullHelp lists all conversation bindings.
func (c *Conversation) FullHelp() [][]key.Binding {
	return [][]key.Binding{c.Keys.bindings(), {c.Keys.PrevTool, c.Keys.NextTool, c.Keys.Toggle, c.Keys.Live, c.Keys.Copy, c.Keys.CopyCode}}
}

// info is the frame's right-hand text.
func (c *Conversation) info() string {
	if c.follow {
		return ""
	}
	return "↑ scrolled · G follows"
}

// banner is the time-travel banner line.
func (c *Conversation) banner(w int) string {
	return c.styles().Conv.Preview.Render(fit(fmt.Sprintf(" preview as of seq %d · esc returns to live", c.preview), w))
}
