package daemon

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestOpenAPIDocumentsEveryRoute fetches GET /v1/openapi.json from a daemon and checks that
// every route the server registered is in it and nothing else is, and that the mux answers
// each documented route with that route's handler.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	f := serve(t, 0)
	req, err := f.c.Request(context.Background(), "GET", "/v1/openapi.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := f.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %v", resp.StatusCode, err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Fatalf("openapi %q", doc.OpenAPI)
	}
	var documented []string
	for path, item := range doc.Paths {
		for verb := range item {
			documented = append(documented, strings.ToUpper(verb)+" "+path)
		}
	}
	served := f.srv.Routes()
	slices.Sort(documented)
	slices.Sort(served)
	if !slices.Equal(documented, served) {
		t.Fatalf("documented but not served: %v\nserved but not documented: %v", minus(documented, served), minus(served, documented))
	}
	for _, p := range served {
		verb, path, _ := strings.Cut(p, " ")
		r, _ := http.NewRequest(verb, "http://exo"+strings.NewReplacer("{", "", "}", "").Replace(path), nil)
		if _, pattern := f.srv.mux.Handler(r); pattern != p {
			t.Errorf("%s is answered by %q", p, pattern)
		}
	}
	if len(served) < 60 {
		t.Fatalf("only %d routes", len(served))
	}
}

// minus returns the elements of a that b lacks.
func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
