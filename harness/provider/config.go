package provider

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Config is what a provider needs to reach its API.
type Config struct {
	// Name labels the instance in errors and on screen; defaults to the kind.
	Name string
	// APIKey authenticates the calls; opened by the harness from a sealed secret.
	APIKey string
	// BaseURL overrides the API's address (required for openai-compatible).
	BaseURL string
	// HTTPClient is used for the calls (default: a plain client).
	HTTPClient *http.Client
	// IdleTimeout abandons a call that receives no byte for this long
	// (default DefaultIdleTimeout; negative disables it).
	IdleTimeout time.Duration
}

// name returns the configured name or def.
func (c Config) name(def string) string {
	if c.Name != "" {
		return c.Name
	}
	return def
}

// schemaMap decodes a tool's JSON schema into a map for the OpenAI SDKs.
func schemaMap(t Tool) (map[string]any, error) {
	if len(t.Schema) == 0 {
		return map[string]any{"type": "object", "properties": map[string]any{}}, nil
	}
	var m map[string]any
	if err := json.Unmarshal(t.Schema, &m); err != nil {
		return nil, fmt.Errorf("tool %s: schema: %w", t.Name, err)
	}
	return m, nil
}

// toolResultText prefixes a failed tool result for APIs without an
// is_error flag.
func toolResultText(m Message) string {
	if m.IsError {
		return "[error] " + m.Text
	}
	return m.Text
}
