package views

import (
	"bytes"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"exo/themes"
)

// previewApp is a tiny root model: a timeline beside a conversation, where
// scrubbing the timeline previews the conversation, as app/ will do.
type previewApp struct {
	common *Common
	tl     *Timeline
	conv   *Conversation
}

func newPreviewApp() *previewApp {
	c := NewCommon(themes.Dark())
	a := &previewApp{common: c, tl: NewTimeline(c), conv: NewConversation(c)}
	a.tl.SetSource(sampleRows(40))
	a.tl.Focus()
	a.conv.SetItems(sampleConversation()[:2])
	return a
}

func (a *previewApp) Init() tea.Cmd { return nil }

func (a *previewApp) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.tl.SetSize(msg.Width/2, msg.Height)
		a.conv.SetSize(msg.Width-msg.Width/2, msg.Height)
	case tea.KeyPressMsg:
		if msg.String() == "ctrl+q" {
			return a, tea.Quit
		}
		_, cmd := a.tl.Update(msg)
		return a, cmd
	case TimelineSelectMsg:
		if !a.tl.IsCurrent(msg) {
			return a, nil
		}
		if msg.Latest {
			a.conv.ClearPreview()
		} else {
			a.conv.SetPreview(msg.Seq)
		}
	case StreamDeltaMsg, StreamDoneMsg:
		a.conv.Update(msg)
	}
	return a, nil
}

func (a *previewApp) View() tea.View {
	v := tea.NewView(lipgloss.JoinHorizontal(lipgloss.Top, a.tl.View(), a.conv.View()))
	v.AltScreen = true
	return v
}

// contains waits for a screen state that shows s.
func contains(s string) func([]byte) bool {
	return func(b []byte) bool { return bytes.Contains([]byte(ansi.Strip(string(b))), []byte(s)) }
}

func TestTeatestScrubPreviewsAndStreams(t *testing.T) {
	tm := teatest.NewTestModel(t, newPreviewApp(), teatest.WithInitialTermSize(100, 20))
	teatest.WaitFor(t, tm.Output(), contains("40/40"), teatest.WithDuration(5*time.Second))
	tm.Send(press("k"))
	tm.Send(press("k"))
	teatest.WaitFor(t, tm.Output(), contains("preview"), teatest.WithDuration(5*time.Second))
	tm.Send(StreamDeltaMsg{Text: "Streaming_answer_arrives"})
	teatest.WaitFor(t, tm.Output(), contains("Streaming_answer_arrives"), teatest.WithDuration(5*time.Second))
	tm.Send(press("ctrl+q"))
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*previewApp)
	if seq, ok := final.conv.Preview(); !ok || seq != 38 {
		t.Errorf("preview = %d,%v, want 38", seq, ok)
	}
}
