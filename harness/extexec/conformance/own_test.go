package conformance

import (
	"context"
	"testing"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/provider"
)

// own is exo's own executor as the suite sees it: its model is called from exo's process, its
// bash is the tool the model calls.
var own = &Adapter{
	Name:            "default",
	Wire:            Anthropic,
	Bash:            "bash",
	Shell:           Tool{Name: "bash", Arg: "command"},
	ReasoningFormat: provider.ReasoningAnthropic,
	Open: func(_ testing.TB, h *harness.Harness, _ string, o Options) Executor {
		x := executor.New(h, o.Exec)
		return Executor{
			Prompt: func(ctx context.Context, sid, text string) (executor.Result, error) {
				return x.Prompt(ctx, sid, text, "test")
			},
			Close: func() {},
		}
	},
	NotApplicable: map[string]string{
		"kill-at-approval": "exo's own executor runs in exo's process: there is no agent process to kill",
		"kill-in-tool":     "exo's own executor runs in exo's process: there is no agent process to kill",
		"kill-mid-stream":  "exo's own executor runs in exo's process: there is no agent process to kill",
	},
}

// TestConformance runs the suite against exo's own executor.
func TestConformance(t *testing.T) { Run(t, own) }
