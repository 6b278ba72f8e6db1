package provider_test

import (
	"context"
	"fmt"
	"os"

	"exo/harness/provider"
)

// A scripted model plays its turns offline; wrapped in Reliable it gets
// exo's retry policy and circuit breaker like any other provider.
func ExampleNewScripted() {
	script, err := provider.ParseScript("hello", []byte(`
turns:
  - text: "Listing first."
    tool_calls:
      - name: list_dir
        args: {path: "."}
  - text: "All done."
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	p := provider.NewReliable(provider.NewScripted(script), provider.RetryPolicy{}, nil)
	req := provider.Request{Model: "scripted", Messages: []provider.Message{{Role: provider.RoleUser, Text: "hi"}}}
	resp, _ := p.Stream(context.Background(), req, func(d provider.Delta) {
		if d.Kind == provider.DeltaText {
			fmt.Print(d.Text)
		}
	})
	fmt.Println()
	fmt.Println(p.Name(), resp.StopReason, resp.ToolCalls[0].Name, string(resp.ToolCalls[0].Arguments))
	// Output:
	// Listing first.
	// scripted:hello tool_use list_dir {"path":"."}
}

// Lookup tolerates dated model ids; Cost prices a usage.
func ExampleLookup() {
	m, _ := provider.Lookup("claude-sonnet-4-5-20250929")
	fmt.Println(m.ID, m.ContextWindow, m.MaxOutput)
	fmt.Printf("$%.4f\n", m.Cost(provider.Usage{Input: 10_000, Cached: 8_000, Output: 500}))
	// Output:
	// claude-sonnet-4-5 200000 64000
	// $0.0159
}

// Providers are built by kind, as `exo model register` records them.
func ExampleNew() {
	p, err := provider.New(provider.KindOpenAICompatible, provider.Config{
		BaseURL: provider.OllamaChatURL(""), Name: "ollama",
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	fmt.Println(p.Name())
	// Output: ollama
}
