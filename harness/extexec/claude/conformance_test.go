package claude

import (
	"testing"

	"exo/harness"
	"exo/harness/extexec/conformance"
	"exo/harness/provider"
)

// TestConformance runs the executor conformance suite against Claude Code: exo's tools over
// MCP (mcp__exo__bash), its own Bash for the home probes (native tools).
func TestConformance(t *testing.T) {
	conformance.Run(t, &conformance.Adapter{
		Name:            Name,
		Wire:            conformance.Anthropic,
		Bash:            "mcp__exo__bash",
		Shell:           conformance.Tool{Name: "Bash", Arg: "command", Extra: map[string]any{"description": "look around"}},
		ReasoningFormat: provider.ReasoningAnthropic,
		External:        true,
		Find:            claudeBinary,
		Open: func(t testing.TB, h *harness.Harness, bin string, o conformance.Options) conformance.Executor {
			x, err := New(h, Options{Binary: bin, NativeTools: o.Native, Exec: o.Exec})
			if err != nil {
				t.Fatal(err)
			}
			return conformance.FromRunner(x.Runner)
		},
	})
}
