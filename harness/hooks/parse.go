package hooks

import (
	"encoding/json"
	"strings"

	"exo/harness"
)

// output is a hook's JSON answer (Claude Code's fields).
type output struct {
	Continue      *bool  `json:"continue"`
	StopReason    string `json:"stopReason"`
	SystemMessage string `json:"systemMessage"`
	Decision      string `json:"decision"` // block; approve (old PreToolUse form)
	Reason        string `json:"reason"`
	Specific      struct {
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		AdditionalContext        string          `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// parse reads a finished hook: exit 2 blocks with stderr as the reason; exit 0 with JSON on
// stdout decides; exit 0 with plain stdout is context for UserPromptSubmit and SessionStart;
// any other exit is a failure that blocks nothing.
func parse(event string, res execResult) outcome {
	o := outcome{run: harness.HookRun{ExitCode: res.code, TimedOut: res.timedOut, DurationMs: res.took.Milliseconds(),
		Output: strings.TrimSpace(res.stdout + "\n" + res.stderr)}}
	if res.err != nil {
		o.run.Error = res.err.Error()
	}
	switch {
	case res.timedOut:
		return o
	case res.code == 2:
		o.block, o.reason = true, strings.TrimSpace(res.stderr)
		if o.reason == "" {
			o.reason = "blocked by a " + event + " hook"
		}
		if event == PreToolUse {
			o.decide = "deny"
		}
	case res.code != 0:
		if o.run.Error == "" {
			o.run.Error = "the hook failed (not blocking)"
		}
		return o
	default:
		o.fromStdout(event, res.stdout)
	}
	o.run.Decision, o.run.Reason = decisionName(o), o.reason
	return o
}

// fromStdout applies a successful hook's stdout.
func (o *outcome) fromStdout(event, stdout string) {
	text := strings.TrimSpace(stdout)
	var out output
	if !strings.HasPrefix(text, "{") || json.Unmarshal([]byte(text), &out) != nil {
		if event == UserPromptSubmit || event == SessionStart {
			o.context = text
		}
		return
	}
	o.context = out.Specific.AdditionalContext
	if out.Continue != nil && !*out.Continue {
		// Claude Code: the agent stops after the hook, whatever else it decided; stopReason is
		// for the user.
		o.stop, o.reason = true, out.StopReason
		return
	}
	o.reason = firstNonEmpty(out.Reason, out.Specific.PermissionDecisionReason)
	if out.Decision == "block" {
		o.block = true
	}
	if event != PreToolUse {
		return
	}
	switch d := out.Specific.PermissionDecision; {
	case d == "allow" || d == "deny" || d == "ask":
		o.decide = d
	case out.Decision == "approve":
		o.decide = "allow"
	case o.block:
		o.decide = "deny"
	}
	if len(out.Specific.UpdatedInput) > 0 && string(out.Specific.UpdatedInput) != "null" {
		o.input = out.Specific.UpdatedInput
	}
}

// decisionName is what the hook.run event records.
func decisionName(o outcome) string {
	switch {
	case o.stop:
		return "stop"
	case o.decide == "deny" || (o.block && o.decide == ""):
		return "block"
	case len(o.input) > 0:
		return "rewrite"
	case o.decide != "":
		return o.decide
	case o.context != "":
		return "context"
	}
	return ""
}

// firstNonEmpty returns the first non-empty string.
func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
