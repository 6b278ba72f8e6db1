package cli

import (
	"context"
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"exo/app"
	"exo/harness/api"
	"exo/themes"
)

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
	if !term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd()) {
		return usagef("exo's full-screen app needs a terminal; for scripts use 'exo run PROMPT' (see exo --help)")
	}
	if _, err := themes.ByName(f.theme, true, false); err != nil {
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
			id, err := app.Pick(c, app.PickOptions{Workspace: e.cwd(), Theme: o.Theme})
			if err != nil || id == "" {
				return err // esc: nothing opens
			}
			o.Session = id
		}
		e.trustPrompt(ctx, c, e.cwd())
		o.Warning = homeInsideWarning(e, e.cwd())
		return app.Run(c, o)
	})
}

// appOptions are the app's options: the flags, and the configuration where no flag was given.
func appOptions(f replFlags, cfg *api.Config, workspace string) app.Options {
	o := app.Options{Session: f.session, Model: f.model, Theme: f.theme, Workspace: workspace, OverrideGovernance: f.override,
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
