package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"exo/harness/api"
)

// configCmd is `exo config`: the configuration in force here and where each value comes from.
func configCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show the configuration in force here: each key, its value and the file it comes from (or default)",
		Long: "exo reads " + e.displayUserFile() + " (the user's; $XDG_CONFIG_HOME/exo/config.toml, else\n" +
			"~/.config/exo/config.toml) and the project's .exo/config.toml over it. A project may only tighten the\n" +
			"approval mode and may not choose the executor unless you trust its config (exo trust); it may never\n" +
			"choose the store (where your sessions go): only your own file sets store.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withClient(func(ctx context.Context, c api.Client) error {
				cfg, err := e.loadConfig(ctx, c, e.cwd(), false)
				if err != nil {
					return err
				}
				if e.opts.Local.ShowStoreEnv == nil {
					return errNoLocal
				}
				e.opts.Local.ShowStoreEnv(cfg, os.Getenv("EXO_STORE"))
				if asJSON {
					return writeJSON(e.stdout, cfg)
				}
				return printConfig(e, cfg)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// displayUserFile names the user's file for help texts.
func (e *env) displayUserFile() string {
	if f := e.opts.Local.UserConfigFile; f != nil {
		if name := f(); name != "" {
			return name
		}
	}
	return "config.toml"
}

// printConfig prints the values, the files read and the warnings.
func printConfig(e *env, cfg *api.Config) error {
	tw := table(e.stdout)
	fmt.Fprintln(tw, "KEY\tVALUE\tSOURCE")
	for _, v := range cfg.Values {
		val := v.Value
		if val == "" {
			val = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", v.Key, val, v.Source)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(cfg.Files) == 0 {
		fmt.Fprintf(e.stdout, "\nno configuration file: create %s or .exo/config.toml\n", e.displayUserFile())
	}
	printInstructions(e, cfg.Instructions)
	for _, w := range cfg.Warnings {
		fmt.Fprintf(e.stderr, "exo: warning: %s\n", w)
	}
	return nil
}

// loadConfig reads the user's and dir's configuration (a malformed file is a usage error
// naming file:line); the project file's trust is asked of the harness only when there is one.
// With warn, warnings go to stderr.
func (e *env) loadConfig(ctx context.Context, c api.Client, dir string, warn bool) (*api.Config, error) {
	if e.opts.Local.LoadConfig == nil {
		return nil, errNoLocal
	}
	cfg, err := e.opts.Local.LoadConfig(ctx, c, dir)
	if err != nil {
		return nil, usageErr(err)
	}
	if warn {
		for _, w := range cfg.Warnings {
			fmt.Fprintf(e.stderr, "exo: warning: %s\n", w)
		}
	}
	return cfg, nil
}

// printInstructions lists the instruction files a session started here loads, in the order
// they join the prompt (a nested folder's join when the agent works under it).
func printInstructions(e *env, files []api.InstructionSource) {
	if len(files) == 0 {
		fmt.Fprintln(e.stdout, "\ninstructions: none (AGENTS.md or CLAUDE.md here or up to the repository's root, or AGENTS.md beside your config.toml)")
		return
	}
	fmt.Fprintln(e.stdout, "\ninstructions loaded here, in order (a subfolder's join when the agent works in it):")
	for _, f := range files {
		cut := ""
		if f.Truncated {
			cut = ", only the first 32 KiB"
		}
		fmt.Fprintf(e.stdout, "  %s (%s, %d bytes%s)\n", f.Path, f.Scope, f.Bytes, cut)
	}
}
