package cli

import (
	"context"
	"fmt"
	"strings"

	"exo/harness/api"
)

// modelHelp tells a user whose model could not be found what to do next: when models are
// registered, that name is not one of them, with the names to choose from; else how to
// register a first one (noModelHelp).
func (e *env) modelHelp(ctx context.Context, c api.Client, name string) {
	list, err := c.Models(ctx)
	if err != nil || len(list.Models) == 0 {
		e.noModelHelp()
		return
	}
	names := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		n := m.Name
		if n == list.Default {
			n += " (default)"
		}
		names = append(names, n)
	}
	w := e.stderr
	if name == "" {
		name = list.Default
	}
	if name == "" {
		fmt.Fprintf(w, "No default model is set. Registered: %s.\n", strings.Join(names, ", "))
		fmt.Fprintln(w, "  • make one the default: exo model default NAME")
	} else {
		fmt.Fprintf(w, "Unknown model %q. Registered: %s.\n", name, strings.Join(names, ", "))
	}
	fmt.Fprintln(w, "  • use one: exo run --model NAME …  (exo model ls lists them)")
	fmt.Fprintln(w, "  • register another: exo model register NAME --provider openai|anthropic|openai-compatible [--base-url URL] --secret NAME")
}
