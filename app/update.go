package app

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"exo/themes"
	"exo/views"
)

// Update is the root dispatcher (see update); it also starts the spinner clock when something
// starts to move: an idle app schedules nothing and costs no CPU between events.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := m.update(msg)
	m.syncQueue()
	if ask := m.showPendingApproval(); ask != nil {
		cmd = tea.Batch(cmd, ask)
	}
	if m.width > 0 && !m.zoom && computeLayout(m.width, m.height, m.input.Height, m.planRows) != m.lay {
		m.resize() // the prompt grew or shrank a line, or the plan came, grew or went
	}
	if !m.ticking && m.animating() {
		m.ticking = true
		cmd = tea.Batch(cmd, views.SpinnerTick())
	}
	return m, cmd
}

// animating reports whether anything on screen moves: a turn runs (in any session: the siblings
// pane spins), a user command runs, or an answer streams.
func (m *Model) animating() bool {
	return len(m.running) > 0 || m.execCancel != nil || m.streaming || m.sandbox.Status().Running
}

// update is the root dispatcher: window and theme first, then harness results, then keys and
// mouse routed to the overlay, global bindings or the focused pane.
func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.resize()
		return m, nil
	case tea.BackgroundColorMsg:
		if st, err := themes.ByName(m.opts.Theme, msg.IsDark(), themes.NoColorRequested()); err == nil {
			m.common.SetStyles(st)
		}
		return m, nil
	case views.SpinnerTickMsg:
		return m, m.tick(msg)
	case tea.FocusMsg:
		m.blurred = false
		return m, nil
	case tea.BlurMsg:
		m.blurred = true
		return m, nil
	case tea.KeyPressMsg:
		m.sel = selection{} // a key ends what the mouse selected
		return m, m.onKey(msg)
	case tea.MouseWheelMsg:
		return m, m.onWheel(msg)
	case tea.MouseClickMsg:
		return m, m.onClick(msg)
	case tea.MouseMotionMsg:
		return m, m.onMotion(msg)
	case tea.MouseReleaseMsg:
		return m, m.onRelease(msg)
	case tea.PasteMsg:
		return m, m.onPaste(msg)
	case pastedImageMsg:
		return m, m.onPastedImage(msg)
	}
	if cmd, ok := m.onHarness(msg); ok {
		return m, cmd
	}
	if cmd, ok := m.onScoreMsg(msg); ok {
		return m, cmd
	}
	return m, m.onPaneMsg(msg)
}

// tick advances every spinner and re-arms the spinner loop.
func (m *Model) tick(msg views.SpinnerTickMsg) tea.Cmd {
	for _, p := range []views.Pane{m.conv, m.siblings, m.sandbox, m.split} {
		p.Update(msg)
	}
	m.status.Tick()
	if !m.animating() {
		m.ticking = false // the clock stops; Update starts it again when something moves
		return nil
	}
	return views.SpinnerTick()
}

// onKey routes a key press.
func (m *Model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	g := m.common.Keys
	if key.Matches(msg, g.Cancel) {
		return m.cancelOrQuit()
	}
	if key.Matches(msg, g.Quit) {
		return m.quit()
	}
	if key.Matches(msg, m.input.Keys.PasteImage) && m.overlay == nil {
		return m.pasteImageCmd() // the clipboard's image, as Claude Code's ctrl+v (alt+v on Windows)
	}
	if key.Matches(msg, g.Mouse) {
		m.mouse = !m.mouse
		if m.mouse {
			return m.say("mouse on: the wheel scrolls the pane under it, a click focuses a pane, a drag selects and copies (alt+m: the terminal's own mouse)", false)
		}
		return m.say("mouse off: the terminal selects text itself, the wheel no longer scrolls panes (alt+m: back on)", false)
	}
	if m.overlay != nil {
		if ap, ok := m.overlay.(*views.Approval); ok && ap.Held() {
			return m.say("an approval just opened: keys typed in its first moment are not taken as an answer", true)
		}
		var cmd tea.Cmd
		m.overlay, cmd = m.overlay.Update(msg)
		return cmd
	}
	if m.focus == focusTimeline && m.timeline.Editing() {
		_, cmd := m.timeline.Update(msg) // typing a filter: every key is text
		return cmd
	}
	completing := m.focus == focusInput && (len(m.input.Completions()) > 0 || len(m.input.MentionMatches()) > 0)
	switch {
	case key.Matches(msg, g.NextPane) && !completing:
		m.setFocus(m.focus + 1)
		return nil
	case key.Matches(msg, g.PrevPane):
		m.setFocus(m.focus - 1)
		return nil
	}
	if bare, ok := paneKey(msg); ok {
		switch {
		case key.Matches(bare, g.Zoom): // alt+z and alt+? act from the prompt too
			m.zoom = !m.zoom
			m.resize()
			return nil
		case key.Matches(bare, g.Help):
			return m.showHelp()
		}
	}
	if m.focus != focusInput {
		if typedText(msg) {
			m.setFocus(focusInput) // text goes to the prompt, wherever the focus was (typing.go)
		} else if bare, ok := paneKey(msg); ok {
			msg = bare // alt+f is the focused pane's f
		}
	}
	if m.focus == focusInput && msg.String() == "?" && m.input.Value() == "" {
		return m.showHelp() // on an empty prompt ? is no text yet: it lists the keys
	}
	if m.focus != focusInput {
		switch {
		case key.Matches(msg, g.Zoom):
			m.zoom = !m.zoom
			m.resize()
			return nil
		case key.Matches(msg, g.Help):
			return m.showHelp()
		case msg.String() == "esc" && (m.focus == focusSiblings || m.focus == focusSandbox):
			m.setFocus(focusInput)
			return nil
		}
	}
	_, cmd := m.pane(m.focus).Update(msg) // panes are pointers and return themselves
	return cmd
}

// onPaste puts pasted text in the prompt (a large paste becomes a chip there), whichever pane
// has focus, or in the timeline's filter while it is typed; a paste while a dialog is open is
// dropped.
func (m *Model) onPaste(msg tea.PasteMsg) tea.Cmd {
	if m.overlay != nil {
		return nil
	}
	if m.focus == focusTimeline && m.timeline.Editing() {
		_, cmd := m.timeline.Update(msg)
		return cmd
	}
	if m.focus != focusInput {
		m.setFocus(focusInput)
	}
	// Terminals send a pasted line end as CR (xterm, VTE, tmux; Windows text as CRLF): make
	// them newlines, or the lines run together and a large paste counts as one line.
	msg.Content = strings.ReplaceAll(strings.ReplaceAll(msg.Content, "\r\n", "\n"), "\r", "\n")
	if mention, note, ok := m.imagePaste(msg.Content); ok {
		if note != "" {
			return m.say(note, true)
		}
		msg.Content = mention // a pasted image file becomes a mention of it, attached on send
	}
	_, cmd := m.input.Update(msg)
	return cmd
}

// onWheel scrolls the pane under the pointer.
func (m *Model) onWheel(msg tea.MouseWheelMsg) tea.Cmd {
	mo := msg.Mouse()
	for _, c := range []struct {
		r rect
		p views.Pane
	}{{m.lay.conv, m.pane(focusConv)}, {m.lay.timeline, m.timeline}, {m.lay.siblings, m.siblings}, {m.lay.sandbox, m.sandbox}} {
		if mo.X >= c.r.x && mo.X < c.r.x+c.r.w && mo.Y >= c.r.y && mo.Y < c.r.y+c.r.h {
			_, cmd := c.p.Update(msg)
			return cmd
		}
	}
	return nil
}

// cancelOrQuit: Ctrl-C stops the user's running command or cancels the running turn; a
// second Ctrl-C (or one with nothing running) within two seconds leaves.
func (m *Model) cancelOrQuit() tea.Cmd {
	if m.execCancel != nil {
		m.execCancel()
		m.execCancel = nil
		m.ctrlCAt = time.Now()
		return m.say("stopping the command… (Ctrl-C again to quit)", false)
	}
	if m.busy() && time.Since(m.ctrlCAt) >= 2*time.Second {
		m.ctrlCAt = time.Now()
		return tea.Batch(m.cancelTurnCmd(m.current()), m.say("cancelling the turn… (Ctrl-C again to quit)", false))
	}
	if time.Since(m.ctrlCAt) < 2*time.Second {
		return m.quit()
	}
	m.ctrlCAt = time.Now()
	return m.say("press Ctrl-C again to quit", false)
}

// quit leaves, first asking what to do with the turns this app started that still run.
func (m *Model) quit() tea.Cmd {
	if names := m.myRunning(); len(names) > 0 && !m.quitting {
		m.quitting = true
		m.overlay, m.approvalID = views.NewQuitConfirm(m.common, names), "" // a waiting approval shows again after it
		m.resize()
		return nil
	}
	return m.leave()
}

// leave closes the app; turns keep running in the harness.
func (m *Model) leave() tea.Cmd {
	m.quitting = true
	if m.execCancel != nil {
		m.execCancel()
	}
	m.closeWatch()
	return tea.Quit
}

// myRunning names the sessions where a turn this app started still runs.
func (m *Model) myRunning() []string {
	var out []string
	for id, t := range m.running {
		if m.mine[t] {
			out = append(out, m.sessionName(id))
		}
	}
	return out
}

// stopMineCmd cancels the turns this app started, then leaves.
func (m *Model) stopMineCmd() tea.Cmd {
	var ids []string
	for id, t := range m.running {
		if m.mine[t] {
			ids = append(ids, id)
		}
	}
	c := m.c
	return tea.Sequence(func() tea.Msg {
		for _, id := range ids {
			_ = c.CancelTurn(bg, id)
		}
		return nil
	}, m.leave())
}

// sessionName returns a session's name from the siblings rows (its id when unknown).
func (m *Model) sessionName(id string) string {
	for _, r := range m.siblings.Rows() {
		if r.ID == id {
			return r.Name
		}
	}
	return id
}

// say shows a transient status message that fades.
func (m *Model) say(text string, isErr bool) tea.Cmd {
	m.msgID++
	m.info.Message, m.info.MessageErr = text, isErr
	return fadeCmd(m.msgID)
}

// showHelp opens the key help: the focused pane's keys, the global keys, then every other
// pane's (keys that work only in a pane, such as b in the timeline, are listed under it).
func (m *Model) showHelp() tea.Cmd {
	h := views.NewHelp(m.common)
	keys := func(f focusID) help.KeyMap {
		if f == focusInput {
			return m.pane(f)
		}
		return altKeyMap{m.pane(f)} // outside the prompt, letters are text: panes take alt+letter
	}
	sections := []views.HelpSection{{Title: paneTitle(m.focus) + " (focused)", Keys: keys(m.focus)}}
	for f := focusInput; f < focusCount; f++ {
		if f != m.focus {
			sections = append(sections, views.HelpSection{Title: paneTitle(f), Keys: keys(f)})
		}
	}
	h.SetSections(sections...)
	m.overlay = h
	m.resize()
	return nil
}

// paneTitle names a pane for the help overlay.
func paneTitle(f focusID) string {
	return [...]string{"input", "conversation", "timeline", "siblings", "sandbox"}[f]
}

// onPaneMsg handles what panes emit.
func (m *Model) onPaneMsg(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case views.SubmitMsg:
		return m.submitAs(msg.Text, msg.Steer)
	case views.TakeBackQueuedMsg:
		return m.takeBackQueued()
	case views.SlashCommandMsg:
		return m.slash(msg.Name, msg.Args)
	case views.ShellCommandMsg:
		if m.session == nil {
			return nil
		}
		return m.execCmd(msg.Command)
	case views.TimelineSelectMsg:
		if !m.timeline.IsCurrent(msg) {
			return nil
		}
		if msg.Latest {
			m.conv.ClearPreview()
			return m.refreshCmd()
		}
		return m.previewCmd(msg.Branch, msg.Seq)
	case views.ExitPreviewMsg:
		m.conv.ClearPreview()
		return m.refreshCmd()
	case views.ForkRequest:
		return tea.Batch(m.say("forking at event "+itoa(msg.Seq)+"…", false), m.forkCmd(msg.Seq, m.viewBranch))
	case views.RewindRequest:
		return m.rewindPlanCmd(msg.Seq)
	case views.AttemptsRequest:
		m.input.SetValue(fmt.Sprintf("/attempts @%d model=", msg.Seq))
		m.setFocus(focusInput)
		return m.say("name the models (and executor=…, check='…'), then the prompt", false)
	case views.RewindConfirmed:
		m.overlay = nil
		return tea.Batch(m.say("rewinding…", false), m.rewindCmd(msg.Seq))
	case views.RewindCanceled, views.CloseOverlay:
		m.overlay = nil
		return nil
	case views.ShowEvent:
		return m.eventCmd(msg.Branch, msg.Seq)
	case views.SwitchSession:
		return m.switchTo(msg.ID)
	case views.NewSession:
		return m.newSessionCmd()
	case views.ToggleSplit:
		return m.toggleSplit(msg.ID)
	case views.EditPromptMsg:
		return writeDraftCmd(msg.Text)
	case views.FilesRequestedMsg:
		return m.filesCmd()
	case filesMsg:
		m.onFiles(msg)
		return nil
	case editorReadyMsg, editorDoneMsg:
		return m.onEditor(msg)
	case views.CopyRequest:
		lines := strings.Count(msg.Text, "\n") + 1
		return tea.Batch(tea.SetClipboard(msg.Text), m.say(fmt.Sprintf("copied %s (%s) to the clipboard (OSC 52)", msg.What, views.Plural(lines, "line")), false))
	case views.NextBranch:
		return m.cycleBranch()
	case views.ConflictDiff:
		return m.conflictDiffCmd(msg.ID, msg.Name)
	case pickerRowsMsg, views.PickedMsg:
		return m.onPicker(msg)
	case views.ArchiveRequest, views.DeleteRequest, archiveConfirmed, deleteConfirmed, lifecycleDoneMsg:
		cmd, _ := m.onLifecycle(msg)
		return cmd
	case views.TakeOver:
		if msg.Refused != "" {
			return m.say(msg.Refused, true)
		}
		return tea.Batch(m.say("taking over "+msg.Name+"…", false), m.takeOverCmd(msg.ID))
	case views.ApprovalDecision:
		return m.answerApproval(msg)
	case views.QuitAnswer:
		m.overlay = nil
		switch msg.Choice {
		case views.QuitKeep:
			return m.leave()
		case views.QuitStop:
			return m.stopMineCmd()
		}
		m.quitting = false
		m.resize()
		return nil
	case fadeMsg:
		if msg.id == m.msgID {
			m.info.Message = ""
		}
	case infoMsg:
		return m.say(msg.text, msg.err)
	case unqueuedMsg:
		return m.onUnqueued(msg)
	}
	return nil
}

// decisionName maps a modal answer to the recorded decision.
func decisionName(d views.Decision) string {
	switch d {
	case views.ApproveAlways:
		return "always"
	case views.Deny:
		return "deny"
	}
	return "once"
}

// submit sends a prompt (see submitAs).
func (m *Model) submit(text string) tea.Cmd { return m.submitAs(text, false) }

// submitAs sends a prompt, unless there is no model; while a turn runs it is queued for when
// the turn ends, or, with steer, for the turn's next step.
func (m *Model) submitAs(text string, steer bool) tea.Cmd {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	// A prompt that cannot be sent yet stays in the input, so nothing typed is lost.
	switch {
	case m.session == nil:
		m.input.SetValue(text)
		return m.say("still opening the session: press enter again in a moment", false)
	case m.session.Node != "":
		m.input.SetValue(text)
		return m.say(readOnlyText(m.session), true)
	case m.offline:
		m.input.SetValue(text)
		m.held = text
		return m.say("the exo daemon is not answering: your prompt stays here and goes out when exo reconnects", true)
	case m.busy():
		if steer {
			return tea.Batch(m.promptCmd(text, whenBusy(steer)), m.say("steering: the turn takes it at its next step", false))
		}
		return tea.Batch(m.promptCmd(text, whenBusy(steer)), m.say("queued: sent when the turn ends (↑ takes it back, ctrl+s steers)", false))
	case m.noModel:
		m.input.SetValue(text)
		return m.say("no model: type /model demo for the offline scripted demo, or register one with exo model register", true)
	}
	m.conv.ClearPreview()
	m.conv.ScrollToBottom()
	m.conv.Append(views.ConvItem{Kind: views.KindUser, Text: text})
	m.info.Busy = true
	return m.promptCmd(text, whenBusy(steer)) // the turn's notices show it running in the siblings pane
}

// switchTo shows another session.
func (m *Model) switchTo(id string) tea.Cmd {
	m.conv.ClearPreview()
	m.input.SetFiles(nil) // another workspace: listed again on the next @
	m.streaming = false
	return tea.Batch(m.loadCmd(id), m.siblingsCmd())
}

// toggleSplit shows the current session beside the selected one (up to four), or hides the split.
func (m *Model) toggleSplit(id string) tea.Cmd {
	if m.splitOn && (id == "" || contains(m.splitIDs, id) || len(m.splitIDs) >= 4) {
		m.splitOn, m.splitIDs = false, nil
		m.resize()
		return nil
	}
	if !m.splitOn {
		m.splitIDs = []string{m.current()}
	}
	if id != "" && !contains(m.splitIDs, id) {
		m.splitIDs = append(m.splitIDs, id)
	}
	if len(m.splitIDs) < 2 {
		return m.say("select another session in the siblings pane, then s", false)
	}
	m.splitOn = true
	m.resize()
	return m.splitCmd(m.splitIDs)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
