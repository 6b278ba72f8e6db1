package cli

import (
	"context"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"exo/harness/api"
)

// App is the full-screen app as the command line opens it: exo-full's main gives app/cli/tui's;
// a binary built without the app (the daemon's) has none.
type App interface {
	// CheckTheme says why a theme name is not one the app knows (nil when it is).
	CheckTheme(name string) error
	// Pick shows the sessions to resume full screen and returns the one chosen ("" when the
	// user cancelled).
	Pick(c api.Client, workspace, theme string) (string, error)
	// Run opens the app until the user leaves it.
	Run(c api.Client, o AppOptions) error
}

// AppOptions are the app's options (exo/app's Options, field for field: app/cli/tui converts
// one into the other).
type AppOptions struct {
	Session, Model, Theme, Workspace string
	OverrideGovernance               bool
	Executor, NewExecutor            string
	Approval, Notify                 string
	Keys                             map[string][]string
	AllowUnconfined                  bool
	ExecutorMode                     string
	Warning                          string
}

// isTerminal says whether fd is a terminal.
func isTerminal(fd uintptr) bool {
	_, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
	return err == nil
}

// replFlags are the TUI's options.
type replFlags struct {
	session, model, theme, executor string
	override, allowUnconfined       bool
	// mode is the session mode of an ACP agent.
	mode string
	// themeSet is true when --theme was given (it then wins over the configuration).
	themeSet bool
	// resume (exo -r with no session named) shows the session picker before the app.
	resume bool
}

func replCmd(e *env) *cobra.Command {
	var f replFlags
	cmd := &cobra.Command{
		Use:   "repl",
		Short: "Open the full-screen app (what plain 'exo' does)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.themeSet = cmd.Flags().Changed("theme")
			return e.repl(f)
		},
	}
	addReplFlags(cmd, &f)
	return cmd
}

func attachCmd(e *env) *cobra.Command {
	var f replFlags
	cmd := &cobra.Command{
		Use:   "attach SESSION",
		Short: "Open the app on a session (its running turn streams live)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.session, f.themeSet = args[0], cmd.Flags().Changed("theme")
			return e.repl(f)
		},
	}
	addReplFlags(cmd, &f)
	cmd.Flags().MarkHidden("session")
	return cmd
}

// addReplFlags declares the TUI flags on a command.
func addReplFlags(cmd *cobra.Command, f *replFlags) {
	cmd.Flags().StringVar(&f.session, "session", "", "attach to this session (default: the newest in this directory, or a new one)")
	cmd.Flags().StringVar(&f.model, "model", "", "model for new sessions (registered name)")
	cmd.Flags().StringVar(&f.theme, "theme", "auto", "auto, dark, light, high-contrast or no-color (NO_COLOR is respected)")
	cmd.Flags().BoolVar(&f.override, "override-governance", false, "start even though the constitution changed since 'exo compile'")
	cmd.Flags().StringVar(&f.executor, "executor", "", "executor of the session the app opens and of new ones: default, claude-code, codex or acp:COMMAND [ARGS] (/executor changes it)")
	cmd.Flags().BoolVar(&f.allowUnconfined, "allow-unconfined", false, "let agents that act themselves (acp:…) run where exo cannot fully confine their process (exo doctor says whether it can)")
	cmd.Flags().StringVar(&f.mode, "executor-mode", "", "session mode of an ACP agent, one it offers (default: the one chosen before for the session, else one in which the agent asks exo before acting)")
}

// repl opens the TUI when stdin and stdout are terminals.
func (e *env) repl(f replFlags) error {
	if e.opts.App == nil {
		return usagef("this exo is built without the full-screen app: run exo-full, or 'exo run PROMPT' for scripts")
	}
	if !isTerminal(os.Stdin.Fd()) || !isTerminal(os.Stdout.Fd()) {
		return usagef("exo's full-screen app needs a terminal; for scripts use 'exo run PROMPT' (see exo --help)")
	}
	if err := e.opts.App.CheckTheme(f.theme); err != nil {
		return usageErr(err)
	}
	return e.withClient(func(ctx context.Context, c api.Client) error {
		if f.session != "" {
			if _, err := resolve(ctx, c, f.session); err != nil {
				return err
			}
		}
		cfg, err := e.loadConfig(ctx, c, e.cwd(), true)
		if err != nil {
			return err
		}
		o := appOptions(f, cfg, e.cwd())
		if f.resume && f.session == "" {
			id, err := e.opts.App.Pick(c, e.cwd(), o.Theme)
			if err != nil || id == "" {
				return err // esc: nothing opens
			}
			o.Session = id
		}
		e.trustPrompt(ctx, c, e.cwd())
		o.Warning = homeInsideWarning(e, e.cwd())
		return e.opts.App.Run(c, o)
	})
}

// appOptions are the app's options: the flags, and the configuration where no flag was given.
func appOptions(f replFlags, cfg *api.Config, workspace string) AppOptions {
	o := AppOptions{Session: f.session, Model: f.model, Theme: f.theme, Workspace: workspace, OverrideGovernance: f.override,
		Executor: f.executor, Approval: cfg.Get(api.ConfigKeyApproval), Notify: cfg.Get(api.ConfigKeyNotify), Keys: cfg.Keys(),
		AllowUnconfined: f.allowUnconfined, ExecutorMode: f.mode}
	if !f.themeSet && cfg.FromFile(api.ConfigKeyTheme) {
		o.Theme = cfg.Get(api.ConfigKeyTheme)
	}
	if o.Model == "" {
		o.Model = cfg.Get(api.ConfigKeyModel)
	}
	if cfg.FromFile(api.ConfigKeyExecutor) {
		o.NewExecutor = cfg.Get(api.ConfigKeyExecutor)
	}
	return o
}
