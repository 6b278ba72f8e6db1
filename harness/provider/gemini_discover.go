package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
)

// geminiModelEntry is one model of the Gemini API's models.list.
type geminiModelEntry struct {
	Name                       string   `json:"name"`
	DisplayName                string   `json:"displayName"`
	InputTokenLimit            int      `json:"inputTokenLimit"`
	OutputTokenLimit           int      `json:"outputTokenLimit"`
	SupportedGenerationMethods []string `json:"supportedGenerationMethods"`
}

// maxGeminiPages bounds how many pages of models.list are read.
const maxGeminiPages = 20

// listGeminiModels reads models.list (GET {base}/v1beta/models, page by page) and keeps the
// models that generate content, with the input and output limits the API reports.
func listGeminiModels(ctx context.Context, client *http.Client, base, key string) ([]RemoteModel, error) {
	var out []RemoteModel
	token := ""
	for page := 0; page < maxGeminiPages; page++ {
		q := url.Values{"pageSize": {"1000"}}
		if token != "" {
			q.Set("pageToken", token)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, geminiBase(base)+"/models?"+q.Encode(), nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("x-goog-api-key", key)
		res, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
		res.Body.Close()
		if err != nil {
			return nil, err
		}
		if res.StatusCode != http.StatusOK {
			return nil, httpError(KindGemini, &httpFailure{status: res.StatusCode, header: res.Header, body: body}, nil)
		}
		var list struct {
			Models        []geminiModelEntry `json:"models"`
			NextPageToken string             `json:"nextPageToken"`
		}
		if err := json.Unmarshal(body, &list); err != nil {
			return nil, fmt.Errorf("decode the models listing: %w", err)
		}
		for _, m := range list.Models {
			if m.Name == "" || !generates(m.SupportedGenerationMethods) {
				continue
			}
			out = append(out, RemoteModel{ID: strings.TrimPrefix(m.Name, "models/"), Name: m.DisplayName,
				ContextWindow: m.InputTokenLimit, MaxOutput: m.OutputTokenLimit})
		}
		if token = list.NextPageToken; token == "" {
			return out, nil
		}
	}
	return out, nil
}

// generates reports whether a model's methods include generateContent (an empty list is
// taken as yes).
func generates(methods []string) bool {
	if len(methods) == 0 {
		return true
	}
	for _, m := range methods {
		if m == "generateContent" || m == "streamGenerateContent" {
			return true
		}
	}
	return false
}

// listGemini is ListModels for the Gemini API.
func listGemini(ctx context.Context, cfg Config) ([]RemoteModel, error) {
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	out, err := listGeminiModels(ctx, client, cfg.BaseURL, cfg.APIKey)
	if err != nil {
		return nil, fmt.Errorf("%s: list models at %s: %w", cfg.name(KindGemini), geminiBase(cfg.BaseURL), err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}
