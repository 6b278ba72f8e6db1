// Package views holds exo's pane components: conversation, input, timeline,
// siblings, sandbox, status bar, help, modals, event detail and split view.
//
// Each pane is a component in the soft-serve style: Update, View, SetSize,
// Focus/Blur and ShortHelp/FullHelp, with its keys declared once as data.
// A pane never measures the terminal and does no I/O; it receives data
// through setters and messages in its own plain view-model types (the app
// maps harness projections to them) and reports user intent by returning
// commands that produce typed messages. Every line a pane renders fits its
// width as measured by ansi.StringWidth, and View always returns exactly the
// pane's size (modals and help return a box that fits within it; draw them
// with Overlay).
//
// Wiring, pane by pane (data in → messages out):
//
//	Conversation  SetItems, Append, SetItem, AppendDelta/FinishStream (or
//	              StreamDeltaMsg/StreamDoneMsg), SetPreview/ClearPreview,
//	              SetTitle, Click                → ExitPreviewMsg
//	Input         SetHistory, SetValue, Reset, PasteMsg, keys
//	              → SubmitMsg, SlashCommandMsg, ShellCommandMsg
//	              (PopupView draws the completions; give it tab while
//	              Completions() is not empty)
//	Timeline      SetSource (TimelineSource), Refresh, SetFilter, Select,
//	              Click  → TimelineSelectMsg (check IsCurrent), ForkRequest,
//	              RewindRequest, ShowEvent
//	Siblings      SetRows, Click  → SwitchSession, NewSession, ToggleSplit
//	Sandbox       Write (or SandboxOutputMsg), SetStatus, Clear
//	StatusBar     SetInfo, SetHints, SetWidth, Tick
//	Approval      NewApproval(ApprovalRequest)  → ApprovalDecision
//	Confirm       NewConfirm(RewindPlan)  → RewindConfirmed, RewindCanceled
//	Detail        NewDetail(title, json)  → CloseOverlay
//	Help          SetKeyMap(title, focused pane)  → CloseOverlay
//	Split         SetPanes(conversations...)  (h/l move focus)
//
// Every pane with a spinner advances on SpinnerTickMsg; the app owns the
// loop (SpinnerTick) and broadcasts the tick. A theme change goes through
// Common.SetStyles, after which panes drop their render caches.
package views
