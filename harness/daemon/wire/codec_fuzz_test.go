package wire

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"exo/harness/api"
)

// FuzzDecodeRequest sends arbitrary requests to every route of the API's table, as a client on
// the socket could: path values, query and body are the fuzzer's, and the server's decoding of
// them into the method's request must never panic (an error is the answer to what it cannot
// read).
func FuzzDecodeRequest(f *testing.F) {
	eps := api.Endpoints()
	f.Add(uint8(0), "x", "seq=1", []byte(`{}`))
	f.Add(uint8(5), "s1", "seq=18446744073709551616&check=true", []byte(`{"name":"\u001b]52;c;x\u0007","scope":{"allow":[1]}}`))
	f.Add(uint8(9), "%00", "after=-1&branch=%ff", []byte(`[`))
	f.Add(uint8(20), "a/b", "workspace=", []byte(`{"settings":{"a":null},"text":123}`))
	f.Fuzz(func(t *testing.T, which uint8, value, query string, body []byte) {
		e := eps[int(which)%len(eps)]
		target := e.Path
		for _, p := range e.Params {
			if p.In == api.InPath {
				target = strings.Replace(target, "{"+p.Name+"}", urlSafe(value), 1)
			}
		}
		mux := http.NewServeMux()
		mux.HandleFunc(e.Pattern(), func(w http.ResponseWriter, r *http.Request) {
			req := reflect.New(e.Request).Interface()
			_ = Decode(e, r, req)
		})
		r, err := http.NewRequest(e.Verb, "http://exo"+target+"?"+query, strings.NewReader(string(body)))
		if err != nil {
			return // not a request a client could send
		}
		mux.ServeHTTP(httptest.NewRecorder(), r)
	})
}

// urlSafe keeps a path value one path segment.
func urlSafe(s string) string {
	return strings.NewReplacer("/", "%2F", "?", "%3F", "#", "%23", " ", "%20").Replace(s)
}
