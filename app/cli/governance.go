package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"exo/harness/api"
	"exo/views/plaintext"
)

// governanceCmds returns the governance commands: drift, compile, init, scope, handoff, finish.
func governanceCmds(e *env) []*cobra.Command {
	return []*cobra.Command{govDriftCmd(e), govCompileCmd(e), govInitCmd(e), govScopeCmd(e),
		govHandoffCmd(e), govFinishCmd(e)}
}

// driftOutput is `exo drift --json`.
type driftOutput struct {
	Session string    `json:"session"`
	Name    string    `json:"name"`
	Scope   api.Scope `json:"scope"`
	Drift   api.Drift `json:"drift"`
}

func govDriftCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "drift SESSION",
		Short: "Show a session's drift: the total, its three parts and the files behind each",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withSession(args[0], func(ctx context.Context, c api.Client, s *api.Session) error {
				rep, err := c.Drift(ctx, s.ID)
				if err != nil {
					return err
				}
				out := driftOutput{Session: s.ID, Name: s.Name, Scope: rep.Scope, Drift: rep.Drift}
				if asJSON {
					return writeJSON(e.stdout, out)
				}
				return printDrift(e, out)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// printDrift renders a drift report as text.
func printDrift(e *env, o driftOutput) error {
	d := o.Drift
	budget := "no budget"
	if d.Budget > 0 {
		budget = fmt.Sprintf("budget %d", d.Budget)
	}
	fmt.Fprintf(e.stdout, "%s  drift %.3f (%s): %d changed, %d in scope, %s\n", o.Name, d.Total, d.Level, d.Changed, d.InScope, budget)
	fmt.Fprintf(e.stdout, "scope: %s\n", o.Scope.String())
	tw := table(e.stdout)
	fmt.Fprintln(tw, "PART\tVALUE\tWEIGHT × FACTOR\tFILES")
	for _, p := range []struct {
		name, what string
		part       api.Part
	}{{"scope", "out of scope", d.Parts.Scope}, {"budget", "changed", d.Parts.Budget}, {"boundary", "boundary", d.Parts.Boundary}} {
		fmt.Fprintf(tw, "%s\t%.3f\t%.2f × %.3f\t%s\n", p.name, p.part.Value, p.part.Weight, p.part.Factor, filesCell(p.what, p.part.Files))
	}
	return tw.Flush()
}

// filesCell lists up to five files of a drift part.
func filesCell(what string, files []string) string {
	if len(files) == 0 {
		return "-"
	}
	s := strings.Join(files[:min(5, len(files))], ", ")
	if len(files) > 5 {
		s += fmt.Sprintf(" +%d more", len(files)-5)
	}
	return what + ": " + s
}

func govCompileCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "compile [DIR]",
		Short: "Validate .exo/constitution.yaml and seal it into .exo/policy.lock",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if e.opts.Local.CompileGovernance == nil {
				return errNoLocal
			}
			c, err := e.opts.Local.CompileGovernance(e.dirArg(args))
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "compiled %s → %s (sha256 %s)\n", c.Constitution, c.Lock, c.SHA256)
			fmt.Fprintf(e.stderr, "%s, %s, %s; commit both files so every session sees them\n",
				plaintext.Plural(c.Rules, "rule"), plaintext.Plural(c.Deny, "deny pattern"), plaintext.Plural(c.Checks, "check"))
			return nil
		},
	}
}

func govInitCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "init [DIR]",
		Short: "Write a starter .exo/constitution.yaml for the project found in DIR",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if e.opts.Local.InitGovernance == nil {
				return errNoLocal
			}
			p, err := e.opts.Local.InitGovernance(e.dirArg(args))
			if err != nil {
				return err
			}
			lang := p.Language
			if lang == "" {
				lang = "unknown language: no checks guessed"
			}
			fmt.Fprintf(e.stdout, "wrote %s (%s", p.Constitution, lang)
			if p.Test != "" {
				fmt.Fprintf(e.stdout, ", checks: %s", p.Test)
			}
			fmt.Fprintln(e.stdout, ")")
			if p.Note != "" {
				fmt.Fprintln(e.stderr, p.Note)
			}
			fmt.Fprintln(e.stderr, "review it, then run 'exo compile' to seal it")
			return nil
		},
	}
}

// dirArg returns the optional DIR argument (a relative one taken from the working directory
// of the command, which may be a thin client's), or the working directory.
func (e *env) dirArg(args []string) string {
	if len(args) == 1 {
		if filepath.IsAbs(args[0]) {
			return args[0]
		}
		return filepath.Join(e.cwd(), args[0])
	}
	return e.cwd()
}

// scopeFlags are the scope options of exo new and exo scope.
type scopeFlags struct {
	allow    []string
	deny     []string
	budget   int
	policy   string
	override bool
}

// addScopeFlags declares --scope, --deny, --budget and --policy on cmd.
func addScopeFlags(cmd *cobra.Command, f *scopeFlags) {
	cmd.Flags().StringArrayVar(&f.allow, "scope", nil, "allow glob (repeatable), e.g. 'src/**'")
	cmd.Flags().StringArrayVar(&f.deny, "deny", nil, "deny glob (repeatable), e.g. 'src/vendor/**'")
	cmd.Flags().IntVar(&f.budget, "budget", 0, "how many files the session may change (0: no budget)")
	cmd.Flags().StringVar(&f.policy, "policy", "", "shell changes outside the scope: record (default) or revert")
}

// addGovernanceOverride declares --override-governance for commands that start a session.
func addGovernanceOverride(cmd *cobra.Command, f *scopeFlags) {
	cmd.Flags().BoolVar(&f.override, "override-governance", false,
		"start even though .exo/constitution.yaml changed since 'exo compile' (recorded in the log)")
}

// request returns the scope flags of exo new as a scope request.
func (f *scopeFlags) request() api.ScopeRequest {
	return api.ScopeRequest{Allow: f.allow, Deny: f.deny, Budget: f.budget, Policy: api.Policy(f.policy)}
}

// forkScope returns the scope to give a fork from the flags (nil without flags): the harness
// narrows the parent's scope with it and refuses anything wider.
func (f *scopeFlags) forkScope(cmd *cobra.Command) *api.Scope {
	var req api.Scope
	if !f.apply(cmd, &req) {
		return nil
	}
	return &req
}

func govScopeCmd(e *env) *cobra.Command {
	var f scopeFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "scope SESSION",
		Short: "Show a session's scope, or change it with --scope/--deny/--budget/--policy",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withSession(args[0], func(ctx context.Context, c api.Client, s *api.Session) error {
				cur, err := c.Scope(ctx, s.ID)
				if err != nil {
					return err
				}
				if changed := f.apply(cmd, &cur); changed {
					if cur, err = c.SetScope(ctx, s.ID, cur, "user"); err != nil {
						return usageErr(err)
					}
				}
				if asJSON {
					return writeJSON(e.stdout, cur)
				}
				fmt.Fprintf(e.stdout, "%s: %s\n", s.Name, cur.String())
				fmt.Fprintf(e.stdout, "boundary: %s\n", strings.Join(cur.Boundaries(), ", "))
				return nil
			})
		},
	}
	addScopeFlags(cmd, &f)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the scope as JSON")
	return cmd
}

// apply changes the flags the user gave: --scope replaces the allow list, --deny adds to the
// deny list, --budget and --policy replace. It reports whether anything was given.
func (f *scopeFlags) apply(cmd *cobra.Command, s *api.Scope) bool {
	fl := cmd.Flags()
	if fl.Changed("scope") {
		s.Allow = f.allow
	}
	if fl.Changed("deny") {
		for _, d := range f.deny {
			if !slices.Contains(s.Deny, d) {
				s.Deny = append(s.Deny, d)
			}
		}
	}
	if fl.Changed("budget") {
		s.Budget = f.budget
	}
	if fl.Changed("policy") {
		s.Policy = api.Policy(f.policy)
	}
	return fl.Changed("scope") || fl.Changed("deny") || fl.Changed("budget") || fl.Changed("policy")
}

// finishFlags are the options of exo finish and exo handoff.
type finishFlags struct {
	summary    string
	skipChecks bool
	timeout    int
	asJSON     bool
}

func addFinishFlags(cmd *cobra.Command, f *finishFlags) {
	cmd.Flags().StringVar(&f.summary, "summary", "", "what was done (default: generated from the log)")
	cmd.Flags().BoolVar(&f.skipChecks, "skip-checks", false, "do not run the constitution's checks")
	cmd.Flags().IntVar(&f.timeout, "check-timeout", 600, "seconds each check may run")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print the memento as JSON")
}

// request builds the finish request of a session.
func (f *finishFlags) request(s *api.Session) api.FinishRequest {
	return api.FinishRequest{Session: s.ID, Summary: f.summary, SkipChecks: f.skipChecks, CheckTimeout: secs(f.timeout)}
}

// printMemento reports a finished session.
func (f *finishFlags) printMemento(e *env, name string, m *api.Memento) error {
	if f.asJSON {
		return writeJSON(e.stdout, m)
	}
	fmt.Fprintf(e.stdout, "finished %s: %s\n", name, m.Summary)
	for _, c := range m.Checks {
		status := "ok"
		if !c.Passed {
			status = fmt.Sprintf("FAILED (exit %d)", c.ExitCode)
		}
		fmt.Fprintf(e.stdout, "  check %s: %s\n", c.Name, status)
	}
	for _, l := range m.Learned {
		fmt.Fprintf(e.stdout, "  learned: %s\n", l)
	}
	return nil
}

// signalContext is cancelled by ^C or SIGTERM.
func (e *env) signalContext() (context.Context, context.CancelFunc) {
	if e.client != nil {
		// relayed: the client leaves on Ctrl-C, which ends e.ctx
		return context.WithCancel(e.ctx)
	}
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

func govFinishCmd(e *env) *cobra.Command {
	var f finishFlags
	cmd := &cobra.Command{
		Use:   "finish SESSION",
		Short: "Finish a session: run the constitution's checks and record its memento",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withSession(args[0], func(_ context.Context, c api.Client, s *api.Session) error {
				ctx, stop := e.signalContext()
				defer stop()
				m, err := c.Finish(ctx, f.request(s))
				if errors.Is(err, api.ErrFinished) {
					return usageErr(err)
				}
				if err != nil {
					return err
				}
				return f.printMemento(e, s.Name, m)
			})
		},
	}
	addFinishFlags(cmd, &f)
	return cmd
}

func govHandoffCmd(e *env) *cobra.Command {
	var f finishFlags
	var to, note string
	cmd := &cobra.Command{
		Use:   "handoff SESSION --to NEW --note TEXT",
		Short: "Finish a session and hand its summary, branch and next steps to another (created if new)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if to == "" {
				return usagef("give the receiving session with --to NAME (an existing session or a new name)")
			}
			return e.withSession(args[0], func(_ context.Context, c api.Client, s *api.Session) error {
				ctx, stop := e.signalContext()
				defer stop()
				res, err := c.Handoff(ctx, api.HandoffRequest{Finish: f.request(s), To: to, Note: note})
				if errors.Is(err, api.ErrSameSession) || errors.Is(err, api.ErrAmbiguous) {
					return usageErr(err)
				}
				if err != nil {
					return err
				}
				return printHandoff(e, &f, res)
			})
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "receiving session (created in the same workspace if it does not exist)")
	cmd.Flags().StringVar(&note, "note", "", "next steps for the receiver")
	addFinishFlags(cmd, &f)
	return cmd
}

// printHandoff reports a handoff.
func printHandoff(e *env, f *finishFlags, res *api.HandoffResult) error {
	if res.Warning != "" {
		fmt.Fprintf(e.stderr, "exo: %s\n", res.Warning)
	}
	if f.asJSON {
		return writeJSON(e.stdout, map[string]any{"from": res.From.ID, "to": res.To.ID, "created": res.Created,
			"memento": res.Memento})
	}
	if res.Memento != nil {
		if err := f.printMemento(e, res.From.Name, res.Memento); err != nil {
			return err
		}
	}
	verb := "handed off to"
	if res.Created {
		verb = "handed off to new session"
	}
	fmt.Fprintf(e.stdout, "%s %s %s (%s)\n", res.From.Name, verb, res.To.Name, res.To.ID)
	fmt.Fprintf(e.stderr, "its next prompt starts with the handoff; workspace %s\n", filepath.Clean(res.To.Workspace))
	return nil
}
