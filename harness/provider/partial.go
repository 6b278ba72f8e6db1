package provider

import "errors"

// PartialError is a failed call (cancelled, or its stream cut or malformed) with what had
// streamed before it failed. Err is the failure itself: errors.Is and errors.As see through.
type PartialError struct {
	Err error
	// Response holds the text, reasoning and tool calls received so far (a call's arguments
	// may be cut short: its Arguments are then a JSON string of the text received), and the
	// usage the provider had reported, if any. StopReason is empty.
	Response Response
	// Args are the tool calls' argument texts as received, parallel to Response.ToolCalls.
	Args []string
	// UsageReported says the provider sent a usage count before the failure (Anthropic sends
	// the prompt's in message_start; OpenAI's APIs send theirs only at the end).
	UsageReported bool
}

// Error is the failure's own message.
func (e *PartialError) Error() string { return e.Err.Error() }

// Unwrap returns the failure.
func (e *PartialError) Unwrap() error { return e.Err }

// PartialOf returns what a failed call had streamed, if anything had.
func PartialOf(err error) (*PartialError, bool) {
	var pe *PartialError
	if errors.As(err, &pe) {
		return pe, true
	}
	return nil, false
}

// failed wraps a call's failure with what the accumulator received, when it received anything
// or the provider had reported usage; otherwise err is returned as it is.
func (a *accumulator) failed(err error, model string, usage Usage) error {
	if err == nil {
		return nil
	}
	if a.ttft == 0 && usage == (Usage{}) {
		return err
	}
	r := a.response(model, usage, "")
	r.StopReason = ""
	pe := &PartialError{Err: err, Response: r, UsageReported: usage != (Usage{})}
	for _, c := range a.calls {
		pe.Args = append(pe.Args, c.args.String())
	}
	return pe
}
