package daemon

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"exo/harness/api"
	"exo/harness/daemon/wire"
)

// FuzzReadRoutes sends arbitrary path values and queries to every route of the API that reads
// (GET, answered with one JSON value) of a real daemon with a session: none may panic, and
// every answer of exo's is JSON (an error object for what it refuses).
func FuzzReadRoutes(f *testing.F) {
	fx := serve(f, 0)
	se, err := fx.c.NewSession(context.Background(), api.NewSessionRequest{Name: "fuzz", Workspace: f.TempDir()})
	if err != nil {
		f.Fatal(err)
	}
	var eps []api.Endpoint
	for _, e := range api.Endpoints() {
		if e.Verb == "GET" && e.Kind == api.JSON && e.Name != "WaitTurn" && e.Name != "Doctor" && e.Name != "MCPStatus" {
			eps = append(eps, e)
		}
	}
	f.Add(uint8(0), se.ID, "seq=1&from=1&to=0")
	f.Add(uint8(3), se.Name, "seq=99999999999&with="+se.ID)
	f.Add(uint8(7), se.Branch, "after=18446744073709551615")
	f.Add(uint8(11), "..", "path=../../etc/passwd&workspace=/")
	f.Fuzz(func(t *testing.T, which uint8, value, query string) {
		e := eps[int(which)%len(eps)]
		target := e.Path
		for _, p := range e.Params {
			if p.In == api.InPath {
				target = strings.Replace(target, "{"+p.Name+"}", strings.NewReplacer("/", "%2F", "?", "%3F", "#", "%23", " ", "%20").Replace(value), 1)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		r, err := http.NewRequestWithContext(ctx, e.Verb, "http://exo"+target+"?"+query, nil)
		if err != nil {
			return
		}
		r.Header.Set(wire.HeaderProtocol, wire.ProtocolString)
		w := httptest.NewRecorder()
		fx.srv.http.Handler.ServeHTTP(w, r)
		// net/http's own answers (a redirect to the cleaned path, no such route) are its text.
		mux := w.Code/100 == 3 || w.Code == http.StatusNotFound || w.Code == http.StatusMethodNotAllowed
		if !mux && !json.Valid(w.Body.Bytes()) {
			t.Fatalf("%s %s?%s: %d with a body that is not JSON: %.200q", e.Verb, target, query, w.Code, w.Body.String())
		}
	})
}
