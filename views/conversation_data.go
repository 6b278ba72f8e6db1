package views

import "time"

// ConvKind is the kind of a conversation item.
type ConvKind int

// The kinds of conversation items.
const (
	KindUser      ConvKind = iota // KindUser is a user turn.
	KindAssistant                 // KindAssistant is an assistant turn (markdown).
	KindTool                      // KindTool is a tool call block.
	KindNotice                    // KindNotice is a harness notice.
	KindDenied                    // KindDenied is a denied secret access.
	KindViolation                 // KindViolation is a policy violation.
	KindError                     // KindError is a failure reported by the harness (e.g. model.failed).
	KindThinking                  // KindThinking is the model's reasoning: dimmed, collapsed unless expanded.
	KindPlan                      // KindPlan is an agent's plan: Text is a checklist, one "[x] ", "[~] " or "[ ] " step a line.
)

// ToolStatus is the state of a tool call.
type ToolStatus string

// The states of a tool call.
const (
	ToolPending  ToolStatus = "pending"     // ToolPending waits to start (or for approval).
	ToolRunning  ToolStatus = "running"     // ToolRunning is executing.
	ToolOK       ToolStatus = "ok"          // ToolOK finished successfully.
	ToolFailed   ToolStatus = "error"       // ToolFailed finished with an error.
	ToolDenied   ToolStatus = "denied"      // ToolDenied was refused by the user or policy.
	ToolCanceled ToolStatus = "interrupted" // ToolCanceled was cut off.
)

// ConvItem is one item of the conversation as the pane shows it.
type ConvItem struct {
	Seq         uint64        // Seq is the event the item comes from (for the app; not shown).
	Kind        ConvKind      // Kind selects how the item renders.
	Text        string        // Text is the user text, assistant markdown or notice text.
	Attached    string        // Attached lists a user turn's attached files, one a line ("path (size)" or "path: note").
	Tool        string        // Tool is the tool name of a tool block.
	ArgsSummary string        // ArgsSummary is a one-line summary of the tool arguments.
	Status      ToolStatus    // Status is the tool call state.
	ExitCode    int           // ExitCode is the command's exit code when finished.
	Duration    time.Duration // Duration is how long the tool ran.
	Output      string        // Output is the tool output (SGR colours allowed).
	Diff        string        // Diff is a unified diff of the files the tool changed.
	Artifact    string        // Artifact names where the full output is kept when Output is cut.
	Streaming   bool          // Streaming marks an assistant turn still arriving.
	// Cut marks an answer that stopped before the model finished it (cancelled, the stream
	// lost, exo stopped): the label shown beside it, e.g. "cut: cancelled".
	Cut string
	// NoExitCode marks a finished call that has no exit status (a file tool, or a call refused
	// before it ran): its header says ✓ or "✗ failed" instead of an exit code of 0.
	NoExitCode bool
}

// StreamDeltaMsg appends streamed assistant text to the conversation.
type StreamDeltaMsg struct {
	Text string // Text is the new fragment.
}

// StreamThinkingMsg appends streamed reasoning to the conversation.
type StreamThinkingMsg struct {
	Text string // Text is the new fragment.
}

// StreamDoneMsg marks the streaming assistant turn complete.
type StreamDoneMsg struct{}

// ExitPreviewMsg asks the app to leave the time-travel preview (esc in the
// conversation while previewing).
type ExitPreviewMsg struct{}
