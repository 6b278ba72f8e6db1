package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// DefaultOllamaURL is where a local Ollama server listens by default.
const DefaultOllamaURL = "http://127.0.0.1:11434"

// OllamaModel is one model an Ollama server has pulled.
type OllamaModel struct {
	// Name is the tag to use as model id, e.g. "llama3.2:latest".
	Name string `json:"name"`
	// Size is the model's size on disk in bytes.
	Size int64 `json:"size"`
	// ModifiedAt is when the model was pulled or changed.
	ModifiedAt time.Time `json:"modified_at"`
	// Family is the model family, e.g. "llama".
	Family string `json:"family"`
	// ParameterSize is the parameter count as Ollama prints it, e.g. "3.2B".
	ParameterSize string `json:"parameter_size"`
	// Quantization is the quantisation level, e.g. "Q4_K_M".
	Quantization string `json:"quantization"`
}

// OllamaChatURL returns the OpenAI-compatible base URL of an Ollama server,
// for NewOpenAICompatible.
func OllamaChatURL(baseURL string) string {
	return ollamaRoot(baseURL) + "/v1"
}

// ollamaRoot strips a trailing slash and "/v1" from a base URL.
func ollamaRoot(baseURL string) string {
	if baseURL == "" {
		baseURL = DefaultOllamaURL
	}
	return strings.TrimSuffix(strings.TrimSuffix(baseURL, "/"), "/v1")
}

// ListOllamaModels asks the Ollama server at baseURL (default
// DefaultOllamaURL; a trailing "/v1" is ignored) which models it has, via
// GET /api/tags. Give ctx a short deadline when probing for a server.
func ListOllamaModels(ctx context.Context, baseURL string) ([]OllamaModel, error) {
	url := ollamaRoot(baseURL) + "/api/tags"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("ollama: %w", err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("ollama: list models at %s: %w", url, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("ollama: list models at %s: HTTP %d", url, res.StatusCode)
	}
	return decodeOllamaTags(res)
}

// decodeOllamaTags reads the /api/tags answer.
func decodeOllamaTags(res *http.Response) ([]OllamaModel, error) {
	var body struct {
		Models []struct {
			Name       string    `json:"name"`
			Model      string    `json:"model"`
			Size       int64     `json:"size"`
			ModifiedAt time.Time `json:"modified_at"`
			Details    struct {
				Family            string `json:"family"`
				ParameterSize     string `json:"parameter_size"`
				QuantizationLevel string `json:"quantization_level"`
			} `json:"details"`
		} `json:"models"`
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("ollama: decode /api/tags: %w", err)
	}
	out := make([]OllamaModel, 0, len(body.Models))
	for _, m := range body.Models {
		out = append(out, OllamaModel{Name: firstNonEmpty(m.Name, m.Model), Size: m.Size, ModifiedAt: m.ModifiedAt,
			Family: m.Details.Family, ParameterSize: m.Details.ParameterSize, Quantization: m.Details.QuantizationLevel})
	}
	return out, nil
}
