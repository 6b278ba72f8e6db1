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

	"exo/harness/api"
	"exo/views/plaintext"
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
	detach         bool
	maxSteps       int
	executor       string
	nativeTools    bool
	// format is the output format: text, json or stream-json (--json is json).
	format string
	// cont continues the current directory's most recent session (-c).
	cont bool
	// approval is the user's approval mode (from the configuration).
	approval string
	// unconfined lets an agent that acts itself run where it cannot be fully confined.
	unconfined bool
	// mode is the session mode an ACP agent runs in.
	mode string
}

// Output formats of exo run.
const (
	formatText   = "text"
	formatJSON   = "json"
	formatStream = "stream-json"
)

// check validates the flags' combinations.
func (f *runFlags) check() error {
	if f.asJSON {
		if f.format != formatText && f.format != formatJSON {
			return usagef("--json is --output-format json: it cannot go with --output-format %s", f.format)
		}
		f.format = formatJSON
	}
	switch f.format {
	case formatText, formatJSON, formatStream:
	default:
		return usagef("--output-format %q: use text, json or stream-json", f.format)
	}
	f.asJSON = f.format == formatJSON
	if f.cont && f.session != "" {
		return usagef("--continue and --session both name the session: give one")
	}
	if f.maxSteps < 1 {
		return usagef("--max-steps must be 1 or more (it is %d)", f.maxSteps)
	}
	return nil
}

func runCmd(e *env) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [flags] PROMPT",
		Short: "Run one prompt: stream the answer to stdout and tool activity to stderr (PROMPT - reads stdin)",
		Long: "The turn runs in exo's daemon: --detach returns at once (watch it with exo tail or exo attach);\n" +
			"otherwise Ctrl-C cancels it. Exit 0 done, 1 model or tool failure, 2 usage, 3 step limit, 130 interrupted.",
		Args: cobra.ExactArgs(1),
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
			if err := f.check(); err != nil {
				return err
			}
			return e.withClient(func(ctx context.Context, c api.Client) error { return e.run(ctx, c, f, prompt) })
		},
	}
	cmd.Flags().StringVar(&f.session, "session", "", "continue this session (default: a new one in the current directory)")
	cmd.Flags().StringVar(&f.model, "model", "", "registered model to use (default: the default model)")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print one JSON object at the end instead of streaming (--output-format json)")
	cmd.Flags().StringVar(&f.format, "output-format", formatText, "text (stream the answer), json (one object at the end) or stream-json (events and deltas as JSON lines)")
	cmd.Flags().BoolVarP(&f.cont, "continue", "c", false, "continue the current directory's most recent session")
	cmd.Flags().BoolVar(&f.yes, "yes", false, "approve tool calls whose policy is ask")
	cmd.Flags().BoolVar(&f.detach, "detach", false, "start the turn in the daemon, print the session and return")
	cmd.Flags().IntVar(&f.maxSteps, "max-steps", 50, "most model calls in the turn")
	cmd.Flags().BoolVar(&f.override, "override-governance", false, "run even though the constitution changed since 'exo compile'")
	cmd.Flags().StringVar(&f.executor, "executor", "", "executor of the turn: default (exo's own), claude-code or codex (default: the session's)")
	cmd.Flags().BoolVar(&f.nativeTools, "native-tools", false, "with an external executor, let the agent use its own tools (each use approved by exo)")
	cmd.Flags().BoolVar(&f.unconfined, "allow-unconfined", false, "let an agent that acts itself (--native-tools, acp:…) run where exo cannot fully confine its process (exo doctor says whether it can)")
	cmd.Flags().StringVar(&f.mode, "executor-mode", "", "session mode of an ACP agent, one it offers (default: the one chosen before for the session, else one in which the agent asks exo before acting)")
	return cmd
}

// run starts one turn in the harness and follows it to its end.
func (e *env) run(ctx context.Context, c api.Client, f runFlags, prompt string) error {
	if err := e.runConfig(ctx, c, &f); err != nil {
		return err
	}
	if _, err := c.Model(ctx, f.model); err != nil {
		if api.HasCode(err, api.CodeUnreachable) {
			return unreachableErr(err)
		}
		e.modelHelp(ctx, c, f.model)
		return usageErr(err)
	}
	if f.cont {
		s, err := e.latestHere(ctx, c)
		if err != nil {
			return err
		}
		f.session = s.ID
		if f.format == formatText {
			fmt.Fprintf(e.stderr, "continuing %s\n", s.Name)
		}
	}
	s, err := e.runSession(ctx, c, f)
	if err != nil {
		return err
	}
	e.trustNotice(ctx, c, projectDir(s))
	var w *api.Watcher
	if !f.asJSON && !f.detach {
		st, err := c.State(ctx, s.Branch)
		if err != nil {
			return err
		}
		// Watch before starting, from the current head: nothing the turn streams is missed.
		if w, err = c.Watch(ctx, api.WatchRequest{Session: s.ID, After: st.Head, Client: "run"}); err != nil {
			return err
		}
		defer w.Close()
	}
	started, err := c.StartTurn(ctx, api.TurnRequest{Session: s.ID, Text: prompt, Source: "run", MaxSteps: f.maxSteps,
		AutoApprove: f.yes, Headless: true, OverrideGovernance: f.override, Executor: f.executor, NativeTools: f.nativeTools, Approval: f.approval, AllowUnconfined: f.unconfined, ExecutorMode: f.mode,
		WhenBusy: api.BusyQueue})
	if err != nil {
		return startErr(err)
	}
	if started.Queued {
		return e.runQueued(ctx, c, s, f, started)
	}
	if f.detach {
		fmt.Fprintln(e.stdout, s.ID)
		fmt.Fprintf(e.stderr, "running in the daemon as %s: exo tail %s · exo attach %s\n", s.Name, s.Name, s.Name)
		return nil
	}
	stop := e.cancelOnInterrupt(c, s.ID)
	defer stop()
	var res api.TurnResult
	switch {
	case w != nil && f.format == formatStream:
		e.streamInit(s, started)
		res, err = e.followStream(w, started)
	case w != nil:
		res, err = e.follow(w, started)
	default:
		res, err = c.WaitTurn(ctx, s.ID, started.ID)
	}
	return e.finishRun(s, f, res, err)
}

// startErr maps a refused turn to its exit code.
func startErr(err error) error {
	switch {
	case errors.Is(err, api.ErrBusy), errors.Is(err, api.ErrInvalid):
		return usageErr(err)
	}
	return err
}

// cancelOnInterrupt cancels the turn on the first Ctrl-C or SIGTERM (the turn then ends as
// cancelled and run reports it); a second Ctrl-C leaves at once, the turn's end recorded by the
// daemon all the same. A relayed command line gets the client's Ctrl-C instead of signals (the
// client itself leaves on the second).
func (e *env) cancelOnInterrupt(c api.Client, sessionID string) func() {
	return e.onInterrupt("cancelling the turn", func(ctx context.Context) error { return c.CancelTurn(ctx, sessionID) })
}

// onInterrupt runs stop on the first Ctrl-C or SIGTERM (what saying says it does), and leaves
// at once on the second (see cancelOnInterrupt).
func (e *env) onInterrupt(saying string, stop func(context.Context) error) func() {
	sigs := make(chan os.Signal, 2)
	interrupts := e.interrupts
	if interrupts == nil {
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-interrupts:
		case <-done:
			return
		}
		fmt.Fprintf(e.stderr, "\nexo: %s… (Ctrl-C again to leave now)\n", saying)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		go func() { _ = stop(ctx); cancel() }()
		select {
		case <-sigs:
			os.Exit(ExitInterrupted)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// follow prints the turn's streamed text to stdout and its tool activity to stderr until the
// turn's end arrives on the watch.
func (e *env) follow(w *api.Watcher, started api.TurnStarted) (api.TurnResult, error) {
	out := newFlushWriter(e.stdout, 30*time.Millisecond)
	defer out.Close()
	midLine, warned := false, false
	for n := range w.C {
		if n.Lagged && !warned {
			warned = true
			out.Flush()
			fmt.Fprintf(e.stderr, "\nexo: this terminal fell too far behind the stream and missed part of it; the whole answer is in the log: exo log %s\n", started.Session)
		}
		if n.Progress != nil {
			out.Flush()
			e.printProgress(n.Progress)
		}
		if n.Delta != "" {
			io.WriteString(out, n.Delta)
			midLine = !strings.HasSuffix(n.Delta, "\n")
		}
		for _, ev := range n.Events {
			if line := toolLine(ev); line != "" {
				if midLine {
					io.WriteString(out, "\n")
					midLine = false
				}
				out.Flush()
				fmt.Fprint(e.stderr, line)
			}
		}
		if t := n.Turn; t != nil && t.ID == started.ID && !t.Running {
			var res api.TurnResult
			if t.Result != nil {
				res = *t.Result
			}
			if t.Error != "" {
				return res, &api.RemoteError{Code: t.ErrorCode, Message: t.Error}
			}
			return res, nil
		}
	}
	err := w.Err()
	if err == nil {
		err = errors.New("the watch ended")
	}
	return api.TurnResult{}, fmt.Errorf("lost the exo daemon during the turn (%v); the turn's events are in the log: exo log SESSION, exo daemon logs", err)
}

// toolLine renders a tool event of the log for stderr (the event is already redacted).
func toolLine(ev api.Event) string {
	p, err := api.Decode(ev)
	if err != nil {
		return ""
	}
	switch p := p.(type) {
	case *api.ToolStarted:
		return fmt.Sprintf("\n▸ %s %s\n", p.Tool, oneLine(p.Summary, 200))
	case *api.ToolCompleted:
		return outputPreview(p.Output)
	case *api.ExecutorStarted:
		if len(p.Unconfined) > 0 {
			return "\nexo: WARNING: " + api.Summary(ev) + "\n"
		}
	}
	return ""
}

// oneLine cuts s to n runes on one line.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// runSession resolves --session, or creates a session in the current directory.
func (e *env) runSession(ctx context.Context, c api.Client, f runFlags) (*api.Session, error) {
	var s *api.Session
	var err error
	if f.session != "" {
		if s, err = resolve(ctx, c, f.session); err != nil {
			return nil, err
		}
	} else if s, err = c.NewSession(ctx, api.NewSessionRequest{Workspace: e.cwd(), OverrideGovernance: f.override}); err != nil {
		if errors.Is(err, api.ErrInvalid) {
			return nil, usageErr(err)
		}
		return nil, err
	} else {
		e.warnHomeInside(s.Workspace)
	}
	if f.model != "" {
		return c.SetSetting(ctx, s.ID, "model", f.model)
	}
	return s, nil
}

// finishRun prints the outcome and maps it to an exit code.
func (e *env) finishRun(s *api.Session, f runFlags, res api.TurnResult, err error) error {
	out := runOutput{SessionID: s.ID, Session: s.Name, Response: res.Response, Steps: res.Steps, ToolCalls: res.ToolCalls,
		Usage: usage{res.Usage.Input, res.Usage.Output, res.Usage.Cached, res.Usage.CacheWrite, res.Usage.Reasoning}, Cost: res.Cost, TTFTMs: res.TTFTMs, DurationMs: res.DurationMs}
	switch {
	case err != nil && errors.Is(err, api.ErrBusy):
		out.ExitCode, out.Error = ExitUsage, err.Error()
	case err != nil:
		out.ExitCode, out.Error = ExitFailure, err.Error()
	case res.StepLimit:
		out.ExitCode = ExitStepLimit
		out.Error = fmt.Sprintf("stopped at the step limit (%d model calls in one turn); continue with exo run --session %s, or raise --max-steps", f.maxSteps, s.Name)
	case res.Cancelled:
		out.ExitCode, out.Error = ExitInterrupted, "interrupted"
	case res.Failure != "":
		out.ExitCode, out.Error = ExitFailure, res.Failure
	}
	switch f.format {
	case formatJSON:
		writeJSON(e.stdout, out)
	case formatStream:
		writeJSONLine(e.stdout, streamResult{Type: "result", runOutput: out})
	default:
		fmt.Fprintln(e.stdout)
		fmt.Fprintf(e.stderr, "[%s · %s · %s · %d in / %d out tokens · $%.4f · ttft %d ms]\n",
			s.Name, plaintext.Plural(out.Steps, "step"), plaintext.Plural(out.ToolCalls, "tool call"), out.Usage.Input, out.Usage.Output, out.Cost, out.TTFTMs)
	}
	if out.ExitCode != 0 {
		if f.format != formatText {
			return &exitError{code: out.ExitCode, err: errors.New(out.Error)}
		}
		return failf(out.ExitCode, "%s", out.Error)
	}
	return nil
}
