package cli

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"exo/harness/api"
	"exo/views/plaintext"
)

func modelCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "model", Short: "Register and choose models"}
	cmd.AddCommand(modelRegisterCmd(e), modelLsCmd(e), modelRmCmd(e), modelDefaultCmd(e))
	return cmd
}

func modelRegisterCmd(e *env) *cobra.Command {
	var m api.ModelSpec
	var thinking string
	cmd := &cobra.Command{
		Use:   "register NAME --provider openai|anthropic|openai-compatible|scripted",
		Short: "Register a model (limits and prices filled in for well-known model ids)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m.Name = args[0]
			if m.Provider == "" {
				if e.opts.Local.ProviderKinds == nil {
					return errNoLocal
				}
				return usagef("--provider is required (one of %v)", e.opts.Local.ProviderKinds())
			}
			if err := parseThinking(thinking, &m); err != nil {
				return err
			}
			return e.withClient(func(ctx context.Context, c api.Client) error {
				spec, err := c.RegisterModel(ctx, m)
				if err != nil {
					return usageErr(err)
				}
				list, err := c.Models(ctx)
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "registered %s: %s %s, context %d, $%.2f/$%.2f per Mtok in/out%s\n",
					spec.Label(), spec.Provider, spec.ModelID, spec.ContextWindow, spec.PriceIn, spec.PriceOut, reasoningNote(spec))
				if list.Default == spec.Name {
					fmt.Fprintf(e.stdout, "%s is the default model\n", spec.Name)
				}
				return nil
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&m.Provider, "provider", "", "openai, anthropic, openai-compatible or scripted")
	fl.StringVar(&m.ModelID, "model-id", "", "the provider's model id (default: NAME)")
	fl.StringVar(&m.BaseURL, "base-url", "", "API base URL (openai-compatible: required; scripted: the script file)")
	fl.StringVar(&m.Secret, "secret", "", "sealed secret holding the API key")
	fl.IntVar(&m.ContextWindow, "context-window", 0, "context window in tokens")
	fl.Float64Var(&m.PriceIn, "price-in", 0, "input price in $ per million tokens")
	fl.Float64Var(&m.PriceOut, "price-out", 0, "output price in $ per million tokens")
	fl.Float64Var(&m.PriceCachedIn, "price-cached-in", 0, "cache read price in $ per million tokens")
	fl.Float64Var(&m.PriceCacheWrite, "price-cache-write", 0, "cache write price in $ per million tokens")
	fl.StringVar(&m.ReasoningEffort, "reasoning-effort", "", "reasoning effort for OpenAI-style reasoning models: minimal, low, medium, high… (default: medium for known reasoning ids)")
	fl.StringVar(&thinking, "thinking-budget", "", "Anthropic extended thinking budget in tokens, or off (default: 4096 for models that think)")
	return cmd
}

// parseThinking reads --thinking-budget: a number of tokens (at least 1024) or "off".
func parseThinking(v string, m *api.ModelSpec) error {
	switch v {
	case "":
		return nil
	case "off", "0":
		m.ThinkingBudget = api.ThinkingOff
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1024 {
		return usagef("--thinking-budget must be a number of tokens ≥ 1024, or off (got %q)", v)
	}
	m.ThinkingBudget = n
	return nil
}

// reasoningNote says what a registered model is asked for in reasoning.
func reasoningNote(m api.ModelSpec) string {
	effort, budget := m.Reasoning()
	switch {
	case budget > 0:
		return fmt.Sprintf(", thinking budget %d", budget)
	case effort != "":
		return ", reasoning effort " + effort
	}
	return ""
}

func modelLsCmd(e *env) *cobra.Command {
	var asJSON, remote bool
	var q api.RemoteQuery
	cmd := &cobra.Command{
		Use:   "ls [--remote [--provider KIND] [--base-url URL --secret NAME]]",
		Short: "List registered models, or with --remote the models the endpoints serve",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if remote {
				return e.remoteModels(q, asJSON)
			}
			if q.Provider != "" || q.BaseURL != "" {
				return usagef("--provider and --base-url go with --remote")
			}
			return e.withClient(func(ctx context.Context, c api.Client) error {
				list, err := c.Models(ctx)
				if err != nil {
					return err
				}
				ms := list.Models
				if asJSON {
					return writeJSON(e.stdout, ms)
				}
				if len(ms) == 0 {
					e.noModelHelp()
					return nil
				}
				def := list.Default
				tw := table(e.stdout)
				fmt.Fprintln(tw, "NAME\tPROVIDER\tMODEL ID\tCONTEXT\t$IN/M\t$OUT/M\tSECRET")
				for _, m := range ms {
					mark := ""
					if m.Name == def {
						mark = " *"
					}
					fmt.Fprintf(tw, "%s%s\t%s\t%s\t%d\t%.2f\t%.2f\t%s\n", m.Label(), mark, m.Provider, m.ModelID, m.ContextWindow, m.PriceIn, m.PriceOut, m.Secret)
				}
				return tw.Flush()
			})
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	fl.BoolVar(&remote, "remote", false, "ask the endpoints of the registered models (or --base-url) which models they serve")
	fl.StringVar(&q.Provider, "provider", "", "with --remote: only endpoints of this kind (openai, anthropic, openai-compatible)")
	fl.StringVar(&q.BaseURL, "base-url", "", "with --remote: list this endpoint instead")
	fl.StringVar(&q.Secret, "secret", "", "with --base-url: the sealed secret holding its key")
	return cmd
}

func modelRmCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use: "rm NAME", Short: "Remove a registered model", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withClient(func(ctx context.Context, c api.Client) error { return usageErr(c.RemoveModel(ctx, args[0])) })
		},
	}
}

func modelDefaultCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use: "default NAME", Short: "Make a registered model the default", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withClient(func(ctx context.Context, c api.Client) error { return usageErr(c.SetDefaultModel(ctx, args[0])) })
		},
	}
}

// noModelHelp tells a user with no model what to do next: never a dead end.
func (e *env) noModelHelp() {
	w := e.stderr
	fmt.Fprintln(w, "No model is registered yet. Ways to start:")
	for _, k := range []struct{ env, prov, id string }{{"OPENAI_API_KEY", "openai", "gpt-4.1"}, {"ANTHROPIC_API_KEY", "anthropic", "claude-sonnet-4-5"}} {
		if e.envSet(k.env) {
			fmt.Fprintf(w, "  • %s is set: seal it and register a model:\n      exo secret set %s --env %s && exo model register %s --provider %s --secret %s\n",
				k.env, k.prov, k.env, k.id, k.prov, k.prov)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	if e.opts.Local.OllamaModels != nil {
		if models, chatURL, err := e.opts.Local.OllamaModels(ctx); err == nil && len(models) > 0 {
			fmt.Fprintf(w, "  • Ollama answers locally with %s; for example:\n      exo model register %s --provider openai-compatible --base-url %s\n",
				plaintext.Plural(len(models), "model"), models[0], chatURL)
		}
	}
	fmt.Fprintln(w, "  • any API: exo model register NAME --provider openai|anthropic|openai-compatible [--base-url URL] --secret NAME")
	fmt.Fprintln(w, "  • offline, no key: the scripted demo (clearly labelled as scripted):\n      exo model register demo --provider scripted")
}
