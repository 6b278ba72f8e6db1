package api

// Reasons a model answer was cut (ModelCompleted.Cut): the answer streamed so far is recorded as
// a model.completed with Cut set, counted in usage and cost, shown with a cut mark and sent back
// to the model in the next prompt as the text it had written, so that it knows what it said.
const (
	// CutCancelled: the user cancelled the turn (Ctrl-C, Esc, exo cancel, the API).
	CutCancelled = "cancelled"
	// CutStream: the provider's stream broke off (connection lost, stalled, malformed).
	CutStream = "stream_cut"
	// CutShutdown: the daemon stopped while the answer streamed.
	CutShutdown = "shutdown"
	// CutProvider: the provider ended the stream with an error of its own (an error event,
	// finish_reason "error", an overload) after part of the answer had arrived.
	CutProvider = "provider_error"
)

// CutCall is a tool call a cut answer had begun: its name and the arguments as far as they
// streamed (possibly not valid JSON). It was not run.
type CutCall struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	// Args is the argument text received, cut to 2 KiB.
	Args string `json:"args,omitempty"`
	// Bytes is how many bytes of arguments had arrived.
	Bytes int `json:"bytes"`
}

// NewCutCall returns the record of a begun call, its arguments cut to what an event keeps.
func NewCutCall(id, name, args string) CutCall {
	return CutCall{ID: id, Name: name, Args: CutSideText(args), Bytes: len(args)}
}

// CutLabel words a cut reason for the user, e.g. "cut: cancelled".
func CutLabel(reason string) string {
	switch reason {
	case CutCancelled:
		return "cut: cancelled"
	case CutStream:
		return "cut: stream lost"
	case CutShutdown:
		return "cut: exo stopped"
	case CutProvider:
		return "cut: provider error"
	case CutKilled:
		return "cut: exo was killed"
	case CutFailed:
		return "failed"
	case "":
		return ""
	}
	return "cut: " + reason
}
