package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"

	"exo/harness/daemon/client"
)

// daemonHTTP is a plain HTTP client of home's daemon socket: the tests answer approvals
// through it as the app would (POST /v1/sessions/{id}/approvals), without an app.
func daemonHTTP(t *testing.T, home string) *http.Client {
	t.Helper()
	dir, err := client.RuntimeDir()
	if err != nil {
		t.Fatal(err)
	}
	sock, err := client.SocketPath(dir, home)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}}
}

// getJSON reads a daemon endpoint into v.
func getJSON(hc *http.Client, path string, v any) error {
	resp, err := hc.Get("http://exo" + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// answerNext waits for the session's next open approval, answers it with decision as the user
// would in the app, and returns the tool it was asked for. It runs beside a waiting call, so it
// reports failures as errors rather than failing the test itself.
func answerNext(hc *http.Client, session, decision string) (tool string, err error) {
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		var s struct{ ID, Branch string }
		var st struct{ Approvals []string }
		if getJSON(hc, "/v1/sessions/"+url.PathEscape(session), &s) != nil ||
			getJSON(hc, "/v1/branches/"+url.PathEscape(s.Branch)+"/state", &st) != nil || len(st.Approvals) == 0 {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		callID := st.Approvals[0]
		var evs []struct {
			Type string
			Data struct {
				CallID string `json:"call_id"`
				Tool   string
			}
		}
		if err := getJSON(hc, "/v1/branches/"+url.PathEscape(s.Branch)+"/events?from=1", &evs); err != nil {
			return "", err
		}
		for _, e := range evs {
			if e.Type == "approval.requested" && e.Data.CallID == callID {
				tool = e.Data.Tool
			}
		}
		body, _ := json.Marshal(map[string]string{"call_id": callID, "decision": decision})
		resp, err := hc.Post("http://exo/v1/sessions/"+url.PathEscape(s.ID)+"/approvals", "application/json", bytes.NewReader(body))
		if err != nil {
			return "", err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return "", fmt.Errorf("answer the approval: %s", resp.Status)
		}
		return tool, nil
	}
	return "", fmt.Errorf("no approval was asked in %s", session)
}

// approveSoon answers the session's next approval in the background; the channel gets the
// tool it was for, or "error: …".
func approveSoon(t *testing.T, home, session, decision string) <-chan string {
	hc := daemonHTTP(t, home)
	ch := make(chan string, 1)
	go func() {
		tool, err := answerNext(hc, session, decision)
		if err != nil {
			tool = "error: " + err.Error()
		}
		ch <- tool
	}()
	return ch
}
