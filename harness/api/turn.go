package api

// TurnResult sums up one turn of an executor.
type TurnResult struct {
	SessionID  string     `json:"session_id"`
	Response   string     `json:"response"`
	Steps      int        `json:"steps"`
	ToolCalls  int        `json:"tool_calls"`
	Usage      ModelUsage `json:"usage"`
	Cost       float64    `json:"cost"`
	TTFTMs     int64      `json:"ttft_ms"`
	DurationMs int64      `json:"duration_ms"`
	StopReason string     `json:"stop_reason"`
	// ModelMs is the time spent inside model calls (the rest of DurationMs is exo's own).
	ModelMs int64 `json:"model_ms"`
	// Failure is set when the turn ended on a model or tool failure; Cancelled when the user
	// stopped it; StepLimit when it reached its step limit (recorded as turn.step_limit;
	// Cancelled is set too).
	Failure   string `json:"failure,omitempty"`
	Cancelled bool   `json:"cancelled,omitempty"`
	StepLimit bool   `json:"step_limit,omitempty"`
}

// TurnNotice tells subscribers that a turn started or ended on a session, whoever started it.
type TurnNotice struct {
	// ID identifies the turn (unique within a daemon's life).
	ID string `json:"id"`
	// Source is who asked for it: tui, run, wake, subagent, an executor name…
	Source string `json:"source,omitempty"`
	// Running is true when the turn starts, false when it ends.
	Running bool `json:"running"`
	// Result is the outcome of an ended turn; Error an error that ended it early.
	Result *TurnResult `json:"result,omitempty"`
	Error  string      `json:"error,omitempty"`
	// ErrorCode classifies Error (see the harness API's error codes), e.g. "busy".
	ErrorCode string `json:"error_code,omitempty"`
}
