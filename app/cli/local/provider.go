package local

import (
	"context"

	"exo/harness/provider"
)

// providerKinds lists the model providers exo model register takes.
func providerKinds() []string { return provider.Kinds() }

// ollamaModels lists the models a local Ollama serves and the chat URL to register them with.
func ollamaModels(ctx context.Context) ([]string, string, error) {
	models, err := provider.ListOllamaModels(ctx, "")
	if err != nil {
		return nil, "", err
	}
	names := make([]string, len(models))
	for i, m := range models {
		names[i] = m.Name
	}
	return names, provider.OllamaChatURL(""), nil
}
