package app

import (
	"time"

	"exo/harness/api"
	"exo/views"
)

// noticesMsg carries a batch of harness notices (events, streamed text, sandbox output).
type noticesMsg struct{ batch []api.Notice }

// noticesClosedMsg says the harness subscription ended.
type noticesClosedMsg struct{}

// sessionLoadedMsg carries everything needed to show a session.
type sessionLoadedMsg struct {
	req      uint64
	session  *api.Session
	state    *api.SessionState
	model    api.ModelSpec
	modelErr error
	items    []views.ConvItem
	timeline *timelineSource
	enforced string
	network  bool
	confined bool
	mcp      string // the MCP servers' state ("mcp 2/3"), "" when none
	mcpBad   bool
	// mcpServers are the MCP servers' states the summary was made of (nil when unread).
	mcpServers []api.MCPStatus
	commands   []views.SlashCommand // the workspace's custom slash commands
	err        error
}

// siblingsMsg carries every session, for the siblings pane.
type siblingsMsg struct{ all []api.SessionInfo }

// previewMsg carries the conversation as of an earlier event.
type previewMsg struct {
	req   uint64
	seq   uint64
	items []views.ConvItem
	err   error
}

// turnStartedMsg reports a turn the UI asked the harness to start (or why it did not).
type turnStartedMsg struct {
	session string
	turn    string
	// text is the prompt, put back in the input when it did not go out.
	text string
	err  error
}

// execDoneMsg reports the end of a user shell command (!cmd).
type execDoneMsg struct {
	session string
	command string
	exit    int
	err     error
}

// forkedMsg reports a fork made from the UI.
type forkedMsg struct {
	s   *api.Session
	err error
}

// rewoundMsg reports a rewind made from the UI.
type rewoundMsg struct {
	s   *api.Session
	seq uint64
	err error
}

// rewindPlanMsg carries what a rewind would undo, for the confirm modal.
type rewindPlanMsg struct {
	plan views.RewindPlan
	err  error
}

// eventMsg carries one event for the detail overlay.
type eventMsg struct {
	ev  api.Event
	err error
}

// newSessionMsg reports a session created from the UI.
type newSessionMsg struct {
	s   *api.Session
	err error
}

// infoMsg shows a transient message in the status bar.
type infoMsg struct {
	text string
	err  bool
}

// splitLoadedMsg carries the conversations of sessions shown side by side.
type splitLoadedMsg struct {
	ids    []string
	names  []string
	states []*api.SessionState
}

// fadeMsg clears a status message if it is still the one shown.
type fadeMsg struct{ id int }

// noModelHelp is what an empty conversation says while no model is registered.
const noModelHelp = "No model is registered yet.\n\n" +
	"Type /model demo for the offline scripted demo (always shown as scripted), or register " +
	"a model in a shell: exo model register NAME --provider openai|anthropic|openai-compatible " +
	"(exo model register --help says more)."

// approvalGrace is how long a new approval ignores keys, so that a prompt being typed when it
// opens does not answer it.
const approvalGrace = 800 * time.Millisecond

// approvalArmMsg lets the approval of a call take keys once approvalGrace has passed.
type approvalArmMsg struct{ id string }
