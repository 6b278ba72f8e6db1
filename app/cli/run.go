package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/executors"
	"exo/harness/governance"
	"exo/harness/plugins"
)

// runOutput is the object `exo run --json` prints.
type runOutput struct {
	SessionID  string  `json:"session_id"`
	Session    string  `json:"session"`
	Response   string  `json:"response"`
	Steps      int     `json:"steps"`
	ToolCalls  int     `json:"tool_calls"`
	Usage      usage   `json:"usage"`
	Cost       float64 `json:"cost"`
	TTFTMs     int64   `json:"ttft_ms"`
	DurationMs int64   `json:"duration_ms"`
	ExitCode   int     `json:"exit_code"`
	Error      string  `json:"error,omitempty"`
}

type usage struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	Cached     int64 `json:"cached"`
	CacheWrite int64 `json:"cache_write,omitempty"`
	Reasoning  int64 `json:"reasoning,omitempty"`
}

// runFlags are `exo run`'s options.
type runFlags struct {
	session, model string
	asJSON, yes    bool
	override       bool
	maxSteps       int
	executor       string
	nativeTools    bool
}

func runCmd(e *env) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [flags] PROMPT",
		Short: "Run one prompt headless: stream the answer to stdout and tool activity to stderr (PROMPT - reads stdin)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			prompt := args[0]
			if prompt == "-" {
				var err error
				if prompt, err = e.stdinText(); err != nil {
					return err
				}
			}
			if strings.TrimSpace(prompt) == "" {
				return usagef("the prompt is empty")
			}
			return e.withHarness(func(h *harness.Harness) error { return e.run(h, f, prompt) })
		},
	}
	cmd.Flags().StringVar(&f.session, "session", "", "continue this session (default: a new one in the current directory)")
	cmd.Flags().StringVar(&f.model, "model", "", "registered model to use (default: the default model)")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print one JSON object at the end instead of streaming")
	cmd.Flags().BoolVar(&f.yes, "yes", false, "approve tool calls whose policy is ask")
	cmd.Flags().IntVar(&f.maxSteps, "max-steps", 50, "most model calls in the turn")
	cmd.Flags().BoolVar(&f.override, "override-governance", false, "run even though the constitution changed since 'exo compile'")
	cmd.Flags().StringVar(&f.executor, "executor", "", "executor of the turn: default (exo's own) or claude-code (default: the session's)")
	cmd.Flags().BoolVar(&f.nativeTools, "native-tools", false, "with an external executor, let the agent use its own tools (each use approved by exo)")
	return cmd
}

// run executes one headless turn.
func (e *env) run(h *harness.Harness, f runFlags, prompt string) error {
	if _, err := h.Model(f.model); err != nil {
		e.noModelHelp(h)
		return usageErr(err)
	}
	s, err := e.runSession(h, f)
	if err != nil {
		return err
	}
	if s.Workspace != "" {
		h.PrepareBaseline(s.ID) // overlaps the first snapshot with the first model call
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := executor.Options{Headless: true, AutoApprove: f.yes, MaxSteps: f.maxSteps}
	if err := governance.Install(h, &opts, s.Workspace, f.override); err != nil {
		return failf(ExitFailure, "%v (or pass --override-governance)", err)
	}
	pl := plugins.Install(h, &opts)
	defer pl.Close()
	for _, w := range pl.Warnings {
		fmt.Fprintln(e.stderr, "exo: "+w)
	}
	var out *flushWriter
	if !f.asJSON {
		out = newFlushWriter(e.stdout, 30*time.Millisecond)
		midLine := false
		opts.OnDelta = func(_, d string) {
			io.WriteString(out, d)
			midLine = !strings.HasSuffix(d, "\n")
		}
		opts.OnTool = func(_ string, started bool, tool, summary string) {
			if midLine {
				io.WriteString(out, "\n")
				midLine = false
			}
			out.Flush()
			if started {
				fmt.Fprintf(e.stderr, "\n▸ %s %s\n", tool, summary)
			} else {
				fmt.Fprintf(e.stderr, "  ↳ %s\n", summary)
			}
		}
	}
	x, err := executors.Open(h, executors.ForSession(h, s.ID, f.executor), executors.Options{Exec: opts, NativeTools: f.nativeTools})
	if err != nil {
		return usageErr(err)
	}
	defer x.Close()
	res, err := x.Prompt(ctx, s.ID, prompt, "run")
	if out != nil {
		out.Close()
	}
	return e.finishRun(s, f, res, err)
}

// runSession resolves --session, or creates a session in the current directory.
func (e *env) runSession(h *harness.Harness, f runFlags) (*harness.Session, error) {
	var s *harness.Session
	var err error
	if f.session != "" {
		if s, err = resolve(h, f.session); err != nil {
			return nil, err
		}
	} else if s, err = h.NewSession(harness.NewSessionOptions{Workspace: cwd()}); err != nil {
		return nil, err
	}
	if f.model != "" {
		return h.UpdateSession(s.ID, func(s *harness.Session) error {
			if s.Settings == nil {
				s.Settings = map[string]string{}
			}
			s.Settings["model"] = f.model
			return nil
		})
	}
	return s, nil
}

// finishRun prints the outcome and maps it to an exit code.
func (e *env) finishRun(s *harness.Session, f runFlags, res executor.Result, err error) error {
	out := runOutput{SessionID: s.ID, Session: s.Name, Response: res.Response, Steps: res.Steps, ToolCalls: res.ToolCalls,
		Usage: usage{res.Usage.Input, res.Usage.Output, res.Usage.Cached, res.Usage.CacheWrite, res.Usage.Reasoning}, Cost: res.Cost, TTFTMs: res.TTFTMs, DurationMs: res.DurationMs}
	switch {
	case err != nil && errors.Is(err, executor.ErrBusy):
		out.ExitCode, out.Error = ExitUsage, err.Error()
	case err != nil:
		out.ExitCode, out.Error = ExitFailure, err.Error()
	case res.Cancelled:
		out.ExitCode, out.Error = ExitInterrupted, "interrupted"
	case res.Failure != "":
		out.ExitCode, out.Error = ExitFailure, res.Failure
	}
	if f.asJSON {
		writeJSON(e.stdout, out)
	} else {
		fmt.Fprintln(e.stdout)
		fmt.Fprintf(e.stderr, "[%s · %d steps · %d tool calls · %d in / %d out tokens · $%.4f · ttft %d ms]\n",
			s.Name, out.Steps, out.ToolCalls, out.Usage.Input, out.Usage.Output, out.Cost, out.TTFTMs)
	}
	if out.ExitCode != 0 {
		if f.asJSON {
			return &exitError{code: out.ExitCode, err: errors.New(out.Error)}
		}
		return failf(out.ExitCode, "%s", out.Error)
	}
	return nil
}
