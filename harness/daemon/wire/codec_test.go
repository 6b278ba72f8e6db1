package wire

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"exo/harness/api"
)

// roundTrip sends req of method m through a ServeMux as the client encodes it and returns
// what the server decodes.
func roundTrip[Req, Resp any](t *testing.T, m api.Method[Req, Resp], req Req) (target string, body string, got Req) {
	t.Helper()
	e := m.Endpoint()
	target, err := Target(e, req)
	if err != nil {
		t.Fatal(err)
	}
	var rd *strings.Reader
	if m.Body {
		b, _ := json.Marshal(req)
		body = string(b)
	}
	rd = strings.NewReader(body)
	mux := http.NewServeMux()
	mux.HandleFunc(e.Pattern(), func(w http.ResponseWriter, r *http.Request) {
		if err := Decode(e, r, &got); err != nil {
			t.Fatal(err)
		}
	})
	mux.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(m.Verb, "http://exo"+target, rd))
	return target, body, got
}

// TestCodecKeepsTheWire: requests travel as they always did (paths escaped, query parameters
// and bodies of the same names) and come out on the server as they went in.
func TestCodecKeepsTheWire(t *testing.T) {
	seq := uint64(0)
	cases := []struct {
		name, target, body string
		run                func() (string, string, any, any)
	}{
		{"rewind", "/v1/sessions/a%2Fb/rewind?seq=7", "", func() (string, string, any, any) {
			in := api.SeqRequest{Session: "a/b", Seq: 7}
			tg, b, out := roundTrip(t, api.MethodRewind, in)
			return tg, b, in, out
		}},
		{"state at 0", "/v1/branches/br/state?seq=0", "", func() (string, string, any, any) {
			in := api.StateRequest{Branch: "br", Seq: &seq}
			tg, b, out := roundTrip(t, api.MethodState, in)
			return tg, b, in, out
		}},
		{"state at the head", "/v1/branches/br/state", "", func() (string, string, any, any) {
			in := api.StateRequest{Branch: "br"}
			tg, b, out := roundTrip(t, api.MethodState, in)
			return tg, b, in, out
		}},
		{"settings", "/v1/sessions/s1/settings", `{"Key":"model","Value":"m"}`, func() (string, string, any, any) {
			in := api.SettingRequest{Session: "s1", Key: "model", Value: "m"}
			tg, b, out := roundTrip(t, api.MethodSetSetting, in)
			return tg, b, in, out
		}},
		{"mcp unchecked", "/v1/mcp?workspace=%2Fw", "", func() (string, string, any, any) {
			in := api.MCPRequest{Workspace: "/w"}
			tg, b, out := roundTrip(t, api.MethodMCPStatus, in)
			return tg, b, in, out
		}},
		{"mcp checked", "/v1/mcp?check=1&workspace=%2Fw", "", func() (string, string, any, any) {
			in := api.MCPRequest{Workspace: "/w", Check: true}
			tg, b, out := roundTrip(t, api.MethodMCPStatus, in)
			return tg, b, in, out
		}},
		{"handoff", "/v1/sessions/s2/handoff", `{"finish":{"session":"s2"},"to":"s3"}`, func() (string, string, any, any) {
			in := api.HandoffRequest{Finish: api.FinishRequest{Session: "s2"}, To: "s3"}
			tg, b, out := roundTrip(t, api.MethodHandoff, in)
			return tg, b, in, out
		}},
		{"approve", "/v1/sessions/s/approvals", `{"call_id":"c1","decision":"once"}`, func() (string, string, any, any) {
			in := api.ApproveRequest{Session: "s", CallID: "c1", Decision: "once"}
			tg, b, out := roundTrip(t, api.MethodApprove, in)
			return tg, b, in, out
		}},
	}
	for _, c := range cases {
		target, body, in, out := c.run()
		if target != c.target || body != c.body {
			t.Errorf("%s: %s %s, want %s %s", c.name, target, body, c.target, c.body)
		}
		if !reflect.DeepEqual(in, out) {
			t.Errorf("%s: sent %+v, the server read %+v", c.name, in, out)
		}
	}
}

// TestBadNumberIsInvalid: a query number that is not one is the client's mistake.
func TestBadNumberIsInvalid(t *testing.T) {
	e := api.MethodRewind.Endpoint()
	r := httptest.NewRequest("GET", "http://exo/v1/sessions/s/rewind?seq=x", nil)
	r.SetPathValue("id", "s")
	var req api.SeqRequest
	if err := Decode(e, r, &req); err == nil || !strings.Contains(err.Error(), `seq="x" is not a number`) || api.ErrorCode(err) != "invalid" {
		t.Fatalf("err = %v", err)
	}
}
