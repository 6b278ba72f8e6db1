package acp

import (
	"testing"

	"exo/harness"
	"exo/harness/extexec/conformance"
	"exo/harness/provider"
)

// open opens the ACP executor on the agent program (with args) for the suite; an ACP agent
// always acts itself, so conformance.Options.Native changes nothing.
func open(args ...string) func(testing.TB, *harness.Harness, string, conformance.Options) conformance.Executor {
	return func(t testing.TB, h *harness.Harness, bin string, o conformance.Options) conformance.Executor {
		x, err := New(h, Options{Command: append([]string{bin}, args...), Exec: o.Exec})
		if err != nil {
			t.Fatal(err)
		}
		return conformance.FromRunner(x.Runner)
	}
}

// TestConformanceClaudeAgentACP runs the executor conformance suite against claude-agent-acp:
// exo's tools over MCP (mcp__exo__bash), its own Bash for the home probes.
func TestConformanceClaudeAgentACP(t *testing.T) {
	conformance.Run(t, &conformance.Adapter{
		Name:            Prefix + "claude-agent-acp",
		Wire:            conformance.Anthropic,
		Bash:            "mcp__exo__bash",
		Shell:           conformance.Tool{Name: "Bash", Arg: "command", Extra: map[string]any{"description": "look around"}},
		ReasoningFormat: provider.ReasoningAnthropic,
		KillGroup:       true,
		External:        true,
		Find:            claudeACP,
		Open:            open(),
	})
}

// codexACPDeferred is why codex-acp cannot show the behaviours that need exo's bash called by
// name.
const codexACPDeferred = "codex-acp 2.6.0 offers exo's MCP tools to the model only behind Codex's tool_search " +
	"(deferred tools: its requests list exec_command, apply_patch… and tool_search, no mcp__exo__ tool), " +
	"so a model cannot call exo's bash by name in one step"

// TestConformanceCodexACP runs the executor conformance suite against codex-acp: its own
// exec_command for the home probes (recorded under each command's title).
func TestConformanceCodexACP(t *testing.T) {
	conformance.Run(t, &conformance.Adapter{
		Name:            Prefix + "codex-acp",
		Wire:            conformance.Responses,
		Bash:            "mcp__exo__bash",
		Shell:           conformance.Tool{Name: "exec_command", Arg: "cmd", AnyTitle: true},
		ReasoningFormat: provider.ReasoningResponses,
		KillGroup:       true,
		External:        true,
		Find:            codexACP,
		Open:            open(),
		NotApplicable: map[string]string{
			"tool": codexACPDeferred, "approval": codexACPDeferred, "kill-at-approval": codexACPDeferred,
			"kill-in-tool": codexACPDeferred, "budget": codexACPDeferred, "fork-and-rewind": codexACPDeferred,
			"spans": codexACPDeferred,
		},
		Failing: map[string]string{
			"home-probes": "intermittent under load: in 1 of 4 runs no probe's output reached the model although " +
				"the turn ended normally (the searches for the key's bytes passed in every run)",
		},
	})
}

// TestConformanceGeminiCLI runs the executor conformance suite against the Gemini CLI (acp:gemini
// --acp): exo's tools over MCP (mcp_exo_bash), its own run_shell_command for the home probes,
// its model traffic through exo's endpoint speaking the Gemini API.
func TestConformanceGeminiCLI(t *testing.T) {
	conformance.Run(t, &conformance.Adapter{
		Name:            Prefix + "gemini",
		Wire:            conformance.Gemini,
		Bash:            "mcp_exo_bash",
		Shell:           conformance.Tool{Name: "run_shell_command", Arg: "command", AnyTitle: true},
		ReasoningFormat: provider.ReasoningGemini,
		KillGroup:       true,
		External:        true,
		Find:            geminiCLI,
		Open:            open("--acp"),
	})
}
