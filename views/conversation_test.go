package views

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"exo/themes"
)

func sampleConversation() []ConvItem {
	return []ConvItem{
		{Kind: KindUser, Text: "Add a health check endpoint to the server and test it."},
		{Kind: KindAssistant, Text: "I'll look at the **server** first.\n\n- find the router\n- add `/healthz`\n\n```go\nfunc health(w http.ResponseWriter, r *http.Request) {\n\tw.WriteHeader(200)\n}\n```\n"},
		{Kind: KindTool, Tool: "bash", ArgsSummary: "grep -rn HandleFunc ./cmd", Status: ToolOK, Duration: 340 * time.Millisecond,
			Output: "cmd/server/main.go:12: http.HandleFunc(\"/\", root)\ncmd/server/main.go:13: http.HandleFunc(\"/api\", api)\nline three\nline four\n"},
		{Kind: KindTool, Tool: "edit", ArgsSummary: "cmd/server/main.go", Status: ToolOK, NoExitCode: true, Duration: 12 * time.Millisecond,
			Diff: "--- a/cmd/server/main.go\n+++ b/cmd/server/main.go\n@@ -12,2 +12,3 @@\n http.HandleFunc(\"/\", root)\n+http.HandleFunc(\"/healthz\", health)\n-// TODO\n"},
		{Kind: KindDenied, Text: "OPENAI_API_KEY (tool bash tried to read it)"},
		{Kind: KindViolation, Text: "wrote /etc/hosts outside scope cmd/**"},
		{Kind: KindNotice, Text: "context compacted: 41 events summarised"},
		{Kind: KindError, Text: "model failed: 429 rate limited, retrying in 2s"},
		{Kind: KindTool, Tool: "bash", ArgsSummary: "cat big.log", Status: ToolFailed, ExitCode: 1, Duration: 2 * time.Second, Output: "tail of output\n", Artifact: "sha256:9f2c…e1 (4.2 MB)"},
		{Kind: KindTool, Tool: "bash", ArgsSummary: "go test ./... 🚀 日本語", Status: ToolRunning},
	}
}

func TestConversationFitsEverySize(t *testing.T) {
	for _, sz := range [][2]int{{20, 5}, {30, 8}, {60, 20}, {120, 40}, {3, 2}} {
		c := NewConversation(NewCommon(themes.Dark()))
		c.SetSize(sz[0], sz[1])
		c.SetItems(sampleConversation())
		checkSize(t, c.View(), sz[0], sz[1])
		c.Scroll(-100)
		checkSize(t, c.View(), sz[0], sz[1])
	}
}

func TestConversationScrollAndFollow(t *testing.T) {
	c := NewConversation(NewCommon(themes.Dark()))
	c.SetSize(60, 10)
	c.SetItems(sampleConversation())
	c.View()
	if !c.Following() {
		t.Fatal("new conversation does not follow the bottom")
	}
	c.Update(press("k"))
	if c.Following() {
		t.Fatal("scrolling up kept following")
	}
	c.AppendDelta("new text")
	if strings.Contains(ansi.Strip(c.View()), "new text") {
		t.Error("view jumped to new content while scrolled up")
	}
	c.Update(press("G"))
	if !strings.Contains(ansi.Strip(c.View()), "new text") {
		t.Error("G did not return to the bottom")
	}
	c.Update(press("g"))
	if !strings.Contains(ansi.Strip(c.View()), "health check") {
		t.Errorf("g did not go to the top:\n%s", ansi.Strip(c.View()))
	}
	for range 200 {
		c.Update(press("j"))
	}
	if !c.Following() {
		t.Error("scrolling to the end did not resume following")
	}
}

func TestConversationToolExpand(t *testing.T) {
	c := NewConversation(NewCommon(themes.Dark()))
	c.SetSize(80, 40)
	c.SetItems(sampleConversation())
	if strings.Contains(ansi.Strip(c.View()), "main.go:12:") {
		t.Fatal("collapsed block shows its full output")
	}
	for range 4 {
		c.Update(press("["))
	}
	if c.SelectedTool() != 2 {
		t.Fatalf("selected tool = %d, want 2", c.SelectedTool())
	}
	c.Update(press("enter"))
	if !c.Expanded(2) {
		t.Fatal("enter did not expand the selected block")
	}
	if !strings.Contains(ansi.Strip(c.View()), "main.go:12:") {
		t.Errorf("expanded block hides its output:\n%s", ansi.Strip(c.View()))
	}
	c.Update(press("space"))
	if c.Expanded(2) {
		t.Fatal("space did not collapse the block")
	}
}

func TestConversationStreaming(t *testing.T) {
	c := NewConversation(NewCommon(themes.Dark()))
	c.SetSize(60, 20)
	for _, d := range []string{"# Plan\n\n", "First ", "para", "graph.\n\n", "Second ", "one."} {
		c.Update(StreamDeltaMsg{Text: d})
		checkSize(t, c.View(), 60, 20)
	}
	out := ansi.Strip(c.View())
	for _, want := range []string{"Plan", "First paragraph.", "Second one."} {
		if !strings.Contains(out, want) {
			t.Errorf("streamed view lacks %q:\n%s", want, out)
		}
	}
	c.Update(StreamDoneMsg{})
	if c.Item(0).Streaming || c.Item(0).Text != "# Plan\n\nFirst paragraph.\n\nSecond one." {
		t.Errorf("item after stream = %+v", c.Item(0))
	}
}

func TestConversationPreviewBanner(t *testing.T) {
	c := NewConversation(NewCommon(themes.Light()))
	c.SetSize(50, 10)
	c.SetItems(sampleConversation()[:2])
	c.SetPreview(17)
	out := ansi.Strip(c.View())
	if !strings.Contains(out, "preview as of seq 17") {
		t.Errorf("no preview banner:\n%s", out)
	}
	checkSize(t, c.View(), 50, 10)
}

func TestSanitizeKeepsOnlySGR(t *testing.T) {
	in := "a\x1b[31mred\x1b[0m\x1b]0;title\x07\x1b]52;c;Zm9v\x1b\\\x1b[2J\x1b[10;10H\x1bPdcs\x1b\\b\r\nprogress 10%\rprogress 99%\n\x07\x08c\u009b31m"
	got := Sanitize(in)
	want := "a\x1b[31mred\x1b[0mb\nprogress 99%\nc31m"
	if got != want {
		t.Errorf("Sanitize = %q, want %q", got, want)
	}
}

func TestConversationStreamingLabel(t *testing.T) {
	c := NewConversation(NewCommon(themes.Dark()))
	c.SetSize(40, 8)
	c.AppendDelta("hello")
	first := ansi.Strip(c.View())
	c.Update(SpinnerTickMsg{})
	if ansi.Strip(c.View()) == first {
		t.Error("streaming spinner did not advance")
	}
	c.FinishStream()
	if strings.ContainsAny(ansi.Strip(c.View()), "⠋⠙⠹") {
		t.Errorf("spinner stayed after the stream finished:\n%s", ansi.Strip(c.View()))
	}
	c.SetPreview(3)
	if _, cmd := c.Update(press("esc")); run(cmd) != (ExitPreviewMsg{}) {
		t.Error("esc in preview did not ask to leave it")
	}
}

func TestTrimStyledRight(t *testing.T) {
	in := "\x1b[38;5;252mfirst.\x1b[m\x1b[38;5;252m \x1b[m\x1b[38;5;252m \x1b[m"
	if got := trimStyledRight(in); got != "\x1b[38;5;252mfirst.\x1b[m" {
		t.Errorf("trimStyledRight = %q", got)
	}
	if got := trimStyledRight("plain  "); got != "plain" {
		t.Errorf("trimStyledRight(plain) = %q", got)
	}
}

func TestMarkdownHasOnlySGR(t *testing.T) {
	c := NewConversation(NewCommon(themes.Dark()))
	c.SetSize(30, 12)
	c.SetItems([]ConvItem{{Kind: KindAssistant, Text: "see [the docs](https://example.com/a/very/long/path) \x1b]0;evil\x07now\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"}})
	view := c.View()
	checkSize(t, view, 30, 12)
	if !strings.Contains(ansi.Strip(view), "https://example.com") {
		t.Errorf("link URL not shown:\n%s", ansi.Strip(view))
	}
}

func TestStreamingMatchesOneShot(t *testing.T) {
	doc := "# Title\n\nIntro paragraph with **bold**.\n\n```go\nfunc f() {\n\n\treturn\n}\n```\n\n- one\n- two\n\n  nested para\n\n> quote\n\nlast line"
	c := NewCommon(themes.Dark())
	streamed, oneShot := NewConversation(c), NewConversation(c)
	for _, p := range []*Conversation{streamed, oneShot} {
		p.SetSize(50, 60)
	}
	for i := 0; i < len(doc); i += 7 {
		streamed.AppendDelta(doc[i:min(i+7, len(doc))])
		_ = streamed.View()
	}
	streamed.FinishStream()
	oneShot.SetItems([]ConvItem{{Kind: KindAssistant, Text: doc}})
	if a, b := ansi.Strip(streamed.View()), ansi.Strip(oneShot.View()); a != b {
		t.Errorf("streamed rendering differs from one-shot:\n%s\n---\n%s", a, b)
	}
	if v := ansi.Strip(oneShot.View()); !strings.Contains(v, "return") || strings.Contains(v, "twonested") {
		t.Errorf("code block lost:\n%s", ansi.Strip(oneShot.View()))
	}
}

func TestSetItemsKeepsUnchangedRenders(t *testing.T) {
	c := NewConversation(NewCommon(themes.Dark()))
	c.SetSize(60, 30)
	items := sampleConversation()
	c.SetItems(items)
	_ = c.View()
	first := c.entries[1]
	c.SetItems(items[:4])
	if c.entries[1] != first || c.Len() != 4 {
		t.Fatal("unchanged entry was not kept")
	}
	changed := append([]ConvItem(nil), items[:2]...)
	changed[1].Text = "different"
	c.SetItems(changed)
	if c.entries[1] == first || !strings.Contains(ansi.Strip(c.View()), "different") {
		t.Error("changed entry was kept")
	}
}

func TestShortConversationKeepsFollowing(t *testing.T) {
	c := NewConversation(NewCommon(themes.Dark()))
	c.SetSize(60, 20)
	c.SetItems(sampleConversation()[:1])
	c.Update(press("k"))
	if !c.Following() {
		t.Fatal("k on content that fits stopped following")
	}
	for range 30 {
		c.AppendDelta("line\n\n")
	}
	if !strings.Contains(ansi.Strip(c.View()), "line") {
		t.Error("new content not followed")
	}
}

func TestLongCodeBlockStreamsInChunks(t *testing.T) {
	var b strings.Builder
	b.WriteString("Here is the file:\n```go\n")
	for i := range 100 {
		fmt.Fprintf(&b, "x%d := %d // line %d\n", i, i, i)
	}
	b.WriteString("```\n\nDone.")
	doc := b.String()
	c := NewCommon(themes.Dark())
	streamed, oneShot := NewConversation(c), NewConversation(c)
	for _, p := range []*Conversation{streamed, oneShot} {
		p.SetSize(60, 200)
	}
	for i := 0; i < len(doc); i += 5 {
		streamed.AppendDelta(doc[i:min(i+5, len(doc))])
		_ = streamed.View()
	}
	streamed.FinishStream()
	oneShot.SetItems([]ConvItem{{Kind: KindAssistant, Text: doc}})
	a, o := ansi.Strip(streamed.View()), ansi.Strip(oneShot.View())
	if a != o {
		t.Fatalf("streamed differs from one-shot:\n%s\n---\n%s", a, o)
	}
	for i := range 100 {
		if !strings.Contains(o, fmt.Sprintf("// line %d ", i)) && !strings.Contains(o, fmt.Sprintf("// line %d│", i)) {
			t.Errorf("line %d missing", i)
		}
	}
	if md := oneShot.entries[0].md; md.blocks < 4 {
		t.Errorf("code block rendered in %d blocks, want chunks", md.blocks)
	}
	if strings.Contains(o, "```") {
		t.Errorf("chunk fences leak into the view:\n%s", o)
	}
}

func TestTightListStreamsPerItem(t *testing.T) {
	var b strings.Builder
	b.WriteString("Steps:\n\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "%d. do thing number %d\n", i, i)
		if i%10 == 0 {
			b.WriteString("   - a nested note\n")
		}
	}
	b.WriteString("\nAfter the list.\n\n- a\n- b\n* c\n")
	doc := b.String()
	c := NewCommon(themes.Dark())
	streamed, oneShot := NewConversation(c), NewConversation(c)
	for _, p := range []*Conversation{streamed, oneShot} {
		p.SetSize(60, 80)
	}
	for i := 0; i < len(doc); i += 3 {
		streamed.AppendDelta(doc[i:min(i+3, len(doc))])
		_ = streamed.View()
	}
	streamed.FinishStream()
	oneShot.SetItems([]ConvItem{{Kind: KindAssistant, Text: doc}})
	a, o := ansi.Strip(streamed.View()), ansi.Strip(oneShot.View())
	if a != o {
		t.Fatalf("streamed differs from one-shot:\n%s\n---\n%s", a, o)
	}
	for _, want := range []string{"1. do thing number 1 ", "40. do thing number 40", "a nested note", "After the list."} {
		if !strings.Contains(o, want) {
			t.Errorf("missing %q:\n%s", want, o)
		}
	}
	if strings.Contains(o, "number 1\n│\n") {
		t.Error("blank line between tight items")
	}
	if md := oneShot.entries[0].md; md.blocks < 40 {
		t.Errorf("list rendered in %d blocks, want one per item", md.blocks)
	}
}

// TestCopyBlockAnswerAndCode: y copies the selected tool block (command and output) or, with
// nothing selected, the newest answer; c copies the last code block of the newest answer.
func TestCopyBlockAnswerAndCode(t *testing.T) {
	c := NewConversation(NewCommon(themes.Dark()))
	c.SetSize(60, 20)
	c.SetItems([]ConvItem{
		{Kind: KindUser, Text: "fix it"},
		{Kind: KindTool, Tool: "bash", ArgsSummary: "go test ./...", Output: "ok  exo\n", Status: ToolOK},
		{Kind: KindAssistant, Text: "Run this:\n\n```sh\ngo vet ./...\ngo test -race ./...\n```\n\nand then:\n\n~~~\nmake\n~~~\n"},
	})
	copied := func(k string) CopyRequest {
		_, cmd := c.Update(press(k))
		r, _ := run(cmd).(CopyRequest)
		return r
	}
	if r := copied("y"); !strings.HasPrefix(r.Text, "Run this:") || r.What != "the answer" {
		t.Fatalf("y with nothing selected: %+v", r)
	}
	if r := copied("c"); r.Text != "make" {
		t.Fatalf("c: %+v", r)
	}
	c.Update(press("["))
	if r := copied("y"); r.Text != "$ go test ./...\nok  exo" || r.What != "the bash block" {
		t.Fatalf("y on the tool block: %+v", r)
	}
	if code, ok := lastCodeBlock("```go\nfunc main() {}\n```\ntext\n```\nstill streaming"); !ok || code != "still streaming" {
		t.Fatalf("unclosed fence: %q %v", code, ok)
	}
}
