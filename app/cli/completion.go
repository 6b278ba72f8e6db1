package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"exo/harness/api"
	"exo/harness/daemon/client"
)

// completionTimeout bounds what a shell's Tab waits for the daemon (started if none runs).
const completionTimeout = 5 * time.Second

// maxSeqCompletions bounds the SESSION@SEQ candidates offered (the newest prompts).
const maxSeqCompletions = 40

// addCompletions wires completion of session names (and SESSION@SEQ) and model names into
// every command and flag that takes them; the candidates come from the daemon. A flag's
// completion goes only into a tree built to complete (e.completing): cobra keeps flags'
// completion functions in a map of its own for the process's life, keyed by flag, so every
// command line the daemon ran for a thin client (exo run, exo sessions) kept its whole command
// tree and environment (the client's output buffers among them) for the daemon's life.
func addCompletions(e *env, root *cobra.Command) {
	flags := flagCompletions(e)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		fields := strings.Fields(c.Use)
		if len(fields) > 1 && c.ValidArgsFunction == nil {
			arg := strings.Trim(fields[1], "[]")
			switch {
			case strings.HasPrefix(arg, "SESSION"):
				c.ValidArgsFunction = e.completeSessionArg(strings.Contains(arg, "@SEQ"))
			case arg == "NAME" && c.Parent() != nil && c.Parent().Name() == "model":
				c.ValidArgsFunction = e.completeFirst(e.modelNames)
			}
		}
		for flag, fn := range flags {
			if c.Flags().Lookup(flag) != nil {
				_ = c.RegisterFlagCompletionFunc(flag, fn)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	sessions := e.completeSessionArg(false)
	root.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if r, _ := cmd.Flags().GetBool("resume"); r {
			return sessions(cmd, args, toComplete) // exo -r SESSION
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// flagCompletions returns the completion of each flag that takes a session or a model by name,
// or nothing when the command line does not ask for completions (see addCompletions).
func flagCompletions(e *env) map[string]cobra.CompletionFunc {
	if !e.completing {
		return nil
	}
	return map[string]cobra.CompletionFunc{"session": e.completeAny(e.sessionNames(false)), "to": e.completeAny(e.sessionNames(false)),
		"model": e.completeAny(e.modelNames)}
}

// completeSessionArg completes the first argument with session names (and NAME@SEQ).
func (e *env) completeSessionArg(withSeq bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		if name, _, ok := strings.Cut(toComplete, "@"); ok && withSeq {
			return e.candidates(func(ctx context.Context, c api.Client) ([]cobra.Completion, error) {
				return seqCandidates(ctx, c, name)
			})
		}
		out, dir := e.candidates(e.sessionNames(withSeq))
		if withSeq {
			dir |= cobra.ShellCompDirectiveNoSpace // NAME may go on with @SEQ
		}
		return out, dir
	}
}

// completeFirst completes only the first argument.
func (e *env) completeFirst(list func(context.Context, api.Client) ([]cobra.Completion, error)) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return e.candidates(list)
	}
}

// completeAny completes a flag's value.
func (e *env) completeAny(list func(context.Context, api.Client) ([]cobra.Completion, error)) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return e.candidates(list)
	}
}

// candidates asks the daemon for a list; on any failure it offers nothing (never files).
func (e *env) candidates(list func(context.Context, api.Client) ([]cobra.Completion, error)) ([]cobra.Completion, cobra.ShellCompDirective) {
	ctx, cancel := context.WithTimeout(context.Background(), completionTimeout)
	defer cancel()
	home, err := e.homeDir()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
	}
	c, err := client.Connect(ctx, home, client.ConnectOptions{StartTimeout: completionTimeout})
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
	}
	defer c.Close()
	out, err := list(ctx, c)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// sessionNames lists the sessions that are not archived, described by status and last prompt.
func (e *env) sessionNames(_ bool) func(context.Context, api.Client) ([]cobra.Completion, error) {
	return func(ctx context.Context, c api.Client) ([]cobra.Completion, error) {
		all, err := c.ListSessions(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]cobra.Completion, 0, len(all))
		for _, in := range all {
			if in.Session.Archived || in.Node != "" {
				continue
			}
			desc := string(in.Status)
			if in.LastPrompt != "" {
				desc += " · " + oneLine(in.LastPrompt, 60)
			}
			out = append(out, cobra.CompletionWithDesc(in.Session.Name, desc))
		}
		return out, nil
	}
}

// seqCandidates offers NAME@SEQ for a session's head and its newest prompts.
func seqCandidates(ctx context.Context, c api.Client, name string) ([]cobra.Completion, error) {
	s, err := c.Session(ctx, name)
	if err != nil {
		return nil, err
	}
	evs, err := c.Events(ctx, s.Branch, 1, 0)
	if err != nil {
		return nil, err
	}
	var out []cobra.Completion
	for i := len(evs) - 1; i >= 0 && len(out) < maxSeqCompletions; i-- {
		ev := evs[i]
		if i != len(evs)-1 && ev.Type != api.TypeInvocationReceived {
			continue
		}
		desc := oneLine(api.Summary(ev), 60)
		if i == len(evs)-1 {
			desc = "head · " + desc
		}
		out = append(out, cobra.CompletionWithDesc(fmt.Sprintf("%s@%d", name, ev.Seq), desc))
	}
	return out, nil
}

// modelNames lists the registered models.
func (e *env) modelNames(ctx context.Context, c api.Client) ([]cobra.Completion, error) {
	ms, err := c.Models(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]cobra.Completion, 0, len(ms.Models))
	for _, m := range ms.Models {
		desc := m.Provider + " " + m.ModelID
		if m.Name == ms.Default {
			desc += " (default)"
		}
		out = append(out, cobra.CompletionWithDesc(m.Name, strings.TrimSpace(desc)))
	}
	return out, nil
}

// completionRequest says whether a command line asks for shell completions: cobra's hidden
// commands the completion scripts run (exo __complete run --model "").
func completionRequest(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool {
		return a == cobra.ShellCompRequestCmd || a == cobra.ShellCompNoDescRequestCmd
	})
}
