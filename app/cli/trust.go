package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"exo/harness/api"
)

// trustFlags are `exo trust`'s options.
type trustFlags struct {
	show, yes, revoke, asJSON bool
}

// trustCmd is `exo trust`: review and trust the code a project would run on the host.
func trustCmd(e *env) *cobra.Command {
	var f trustFlags
	cmd := &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Review and trust a project's .mcp.json servers and .exo/settings*.json hooks (code that runs as you)",
		Long: "A project's .mcp.json starts MCP servers and its .exo/settings.json and .exo/settings.local.json run hook\n" +
			"commands on this machine as you. exo runs none of them until you trust the files as they are now; a trusted\n" +
			"file that changes is untrusted again. --show only shows what would run; without --yes exo asks.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := e.cwd()
			if len(args) == 1 {
				var err error
				if dir, err = filepath.Abs(args[0]); err != nil {
					return usageErr(err)
				}
			}
			return e.withClient(func(ctx context.Context, c api.Client) error { return e.trust(ctx, c, dir, f) })
		},
	}
	cmd.Flags().BoolVar(&f.show, "show", false, "show what the project would run and whether it is trusted; change nothing")
	cmd.Flags().BoolVarP(&f.yes, "yes", "y", false, "trust without asking")
	cmd.Flags().BoolVar(&f.revoke, "revoke", false, "withdraw the project's trust")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print the report as JSON")
	return cmd
}

// trust shows a project's code and trusts it when the user agrees.
func (e *env) trust(ctx context.Context, c api.Client, dir string, f trustFlags) error {
	rep, err := c.ProjectTrust(ctx, dir)
	if err != nil {
		return usageErr(err)
	}
	switch {
	case f.revoke:
		if rep, err = c.Trust(ctx, api.TrustRequest{Workspace: dir, Revoke: true}); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "exo no longer trusts %s\n", rep.Project)
	case f.show:
	case rep.Trusted:
		fmt.Fprintf(e.stderr, "%s: nothing new to trust\n", rep.Project)
	default:
		printTrust(e.stderr, rep)
		if !f.yes && !ask(e.stdin, e.stderr, "Trust these files and let them run on this machine as you? [y/N] ") {
			return failf(ExitFailure, "not trusted: the project's MCP servers and hooks stay off")
		}
		if rep, err = c.Trust(ctx, api.TrustRequest{Workspace: dir, Files: hashes(rep)}); err != nil {
			return usageErr(err)
		}
		fmt.Fprintf(e.stderr, "trusted: %s\n", rep.Project)
	}
	if f.asJSON {
		return writeJSON(e.stdout, rep)
	}
	if f.show || f.revoke {
		printTrust(e.stdout, rep)
	}
	return nil
}

// hashes are the reviewed files' hashes.
func hashes(rep api.ProjectTrust) map[string]string {
	out := map[string]string{}
	for _, f := range rep.Files {
		out[f.Path] = f.Hash
	}
	return out
}

// printTrust shows each file, its state and what it would run.
func printTrust(w io.Writer, rep api.ProjectTrust) {
	if len(rep.Files) == 0 {
		fmt.Fprintf(w, "%s provides no MCP servers or hooks (.mcp.json, .exo/settings.json, .exo/settings.local.json)\n", rep.Project)
		return
	}
	fmt.Fprintf(w, "Project %s provides code that runs on this machine as you:\n", rep.Project)
	for _, f := range rep.Files {
		fmt.Fprintf(w, "  %s  [%s]  sha256:%.12s\n", f.Path, f.State, f.Hash)
		for _, r := range f.Runs {
			fmt.Fprintf(w, "    %s\n", r)
		}
		if f.Error != "" {
			fmt.Fprintf(w, "    (cannot be read: %s)\n", f.Error)
		}
	}
}

// ask asks a yes/no question on stdin (EOF is no).
func ask(in io.Reader, out io.Writer, q string) bool {
	fmt.Fprint(out, q)
	line, _ := bufio.NewReader(in).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// projectDir is the folder whose trust a session follows: the project a fork was made from,
// else its workspace.
func projectDir(s *api.Session) string {
	if p := s.Settings["project"]; p != "" {
		return p
	}
	return s.Workspace
}

// trustNotice tells the user, on stderr, that a project's servers or hooks are off until trusted.
func (e *env) trustNotice(ctx context.Context, c api.Client, dir string) {
	rep, err := c.ProjectTrust(ctx, dir)
	if err != nil || rep.Trusted {
		return
	}
	var files []string
	for _, f := range rep.Files {
		if f.State == "untrusted" || f.State == "changed" {
			files = append(files, f.Path+" ("+f.State+")")
		}
	}
	fmt.Fprintf(e.stderr, "exo: not running this project's %s: review with 'exo trust --show', then 'exo trust'\n", strings.Join(files, ", "))
}

// trustPrompt asks, before the app opens, whether to trust a project's untrusted code (as
// Claude Code asks when it opens a folder); no answer leaves it off.
func (e *env) trustPrompt(ctx context.Context, c api.Client, dir string) {
	rep, err := c.ProjectTrust(ctx, dir)
	if err != nil || rep.Trusted {
		return
	}
	printTrust(e.stderr, rep)
	if !ask(e.stdin, e.stderr, "Trust these files and let them run on this machine as you? [y/N] ") {
		fmt.Fprintln(e.stderr, "exo: left off (exo trust to change your mind)")
		return
	}
	if _, err := c.Trust(ctx, api.TrustRequest{Workspace: dir, Files: hashes(rep)}); err != nil {
		fmt.Fprintf(e.stderr, "exo: %v\n", err)
	}
}
