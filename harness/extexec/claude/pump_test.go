package claude

import (
	"context"
	"encoding/base64"
	"testing"
	"time"

	"exo/harness/extexec"
	"exo/harness/extexec/pumptest"
)

// askPeer starts a Claude peer and a conn whose can_use_tool answers block until their context
// ends (asked and ended are told of each tool use id).
func askPeer(t *testing.T) (p *extexec.Process, c *conn, asked, ended chan string) {
	t.Helper()
	p = pumptest.Start(t, "claude")
	asked, ended = make(chan string, 4), make(chan string, 4)
	c = newConn(p, handlers{canUse: func(ctx context.Context, r controlRequest) permission {
		asked <- r.ToolUseID
		<-ctx.Done()
		ended <- r.ToolUseID
		return permission{Message: "cancelled"}
	}})
	return p, c, asked, ended
}

// TestConnCancelRequest: Claude's control_cancel_request ends the context of the answer to that
// request alone (the turn's context is still live), and the conn goes on.
func TestConnCancelRequest(t *testing.T) {
	t.Parallel()
	_, c, asked, ended := askPeer(t)
	cancelled := `{"type":"control_request","request_id":"c1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{},"tool_use_id":"toolu_c"}}` + "\n" +
		`{"type":"control_cancel_request","request_id":"c1"}` + "\n"
	if _, err := c.request(pumptest.Say, map[string]any{"b64": base64.StdEncoding.EncodeToString([]byte(cancelled)), "answer": true}, time.Minute); err != nil {
		t.Fatal(err)
	}
	if id := <-asked; id != "toolu_c" {
		t.Fatalf("asked %q", id)
	}
	if id := <-ended; id != "toolu_c" {
		t.Fatalf("ended %q", id)
	}
	if raw, err := c.request(pumptest.Echo, map[string]any{"after": 1}, time.Minute); err != nil || string(raw) != `{"after":1,"subtype":"echo"}` {
		t.Fatalf("the next request: %s %v", raw, err)
	}
}

// TestConnKilledMidRequest: kill -9 of Claude while exo waits on control requests and answers a
// can_use_tool of Claude's (pumptest.KillMidRequest).
func TestConnKilledMidRequest(t *testing.T) {
	pumptest.KillMidRequest(t, func() pumptest.Pump {
		p, c, asked, ended := askPeer(t)
		return pumptest.Pump{Proc: p, Agent: "claude", Ready: c.Ready(), Asked: asked, Ended: ended,
			Call: func(m string) error { _, err := c.request(m, nil, 10*time.Minute); return err },
			Take: func() (int, bool) { msgs, closed := c.Take(); return len(msgs), closed }}
	})
}
