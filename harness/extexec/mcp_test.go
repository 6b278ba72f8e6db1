package extexec

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"exo/harness/provider"
)

// fakeTools is a tool set that can change, and records the calls it is given.
type fakeTools struct {
	mu    sync.Mutex
	tools []provider.Tool
	calls []string
	block chan struct{} // when set, a call waits for it or for its ctx
	ended chan error    // a blocked call's ctx error
}

func (f *fakeTools) server() *MCPServer {
	return &MCPServer{Name: "exo", Version: "1",
		Tools: func(context.Context) []provider.Tool { f.mu.Lock(); defer f.mu.Unlock(); return f.tools },
		Call: func(ctx context.Context, id, name string, args json.RawMessage) (string, bool) {
			f.mu.Lock()
			f.calls = append(f.calls, id+" "+name+" "+string(args))
			block := f.block
			f.mu.Unlock()
			if block != nil {
				select {
				case <-block:
				case <-ctx.Done():
					f.ended <- ctx.Err()
					return "cancelled", true
				}
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			for _, t := range f.tools {
				if t.Name == name {
					return "ran " + name, false
				}
			}
			return "exo has no tool " + name, true
		}}
}

func (f *fakeTools) set(tools ...provider.Tool) { f.mu.Lock(); f.tools = tools; f.mu.Unlock() }

var (
	bashTool = provider.Tool{Name: "bash", Description: "run", Schema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)}
	readTool = provider.Tool{Name: "read_file", Description: "read", Schema: json.RawMessage(`{"type":"object"}`)}
)

// tokenTransport adds the endpoint's token to each request.
type tokenTransport struct{ token string }

func (t tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestMCPOverHTTPWithTheSDKClient drives the endpoint's MCP route with the official SDK's
// client, as an ACP agent reaches it: the token is required, the tool set is read at each list,
// and a call of a tool no longer listed still reaches exo, which refuses it with a result.
func TestMCPOverHTTPWithTheSDKClient(t *testing.T) {
	t.Parallel()
	_, _, ep, _ := endpointFixture(t, "prompts: []\n")
	f := &fakeTools{}
	f.set(bashTool, readTool)
	ep.ServeMCP(f.server())
	ctx := context.Background()

	connect := func(token string) (*sdk.ClientSession, error) {
		c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
		return c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: ep.URL() + MCPPath,
			HTTPClient: &http.Client{Transport: tokenTransport{token}}, DisableStandaloneSSE: true}, nil)
	}
	if _, err := connect("exo-wrong"); err == nil {
		t.Fatal("a client without the session token connected")
	}
	cs, err := connect(ep.Token())
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ServerInfo.Name; got != "exo" {
		t.Fatalf("server name %q", got)
	}
	names := func() string {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tl := range res.Tools {
			out = append(out, tl.Name)
		}
		return strings.Join(out, ",")
	}
	if got := names(); got != "bash,read_file" {
		t.Fatalf("tools %q", got)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "ls"}})
	if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != "ran bash" {
		t.Fatalf("call: %v %+v", err, res)
	}
	f.set(readTool) // bash is denied now: it leaves the list, and a call of it is exo's to refuse
	if got := names(); got != "read_file" {
		t.Fatalf("tools after the change %q", got)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "ls"}})
	if err != nil || !res.IsError {
		t.Fatalf("a call of an unlisted tool: %v %+v", err, res)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) != 2 || f.calls[1] != ` bash {"command":"ls"}` {
		t.Fatalf("calls %q", f.calls)
	}
}

// TestMCPInBandRefusesHostileMessages hands the in-band server what a confused or hostile agent
// could send: nothing reaches a tool but a well-formed tools/call after initialize.
func TestMCPInBandRefusesHostileMessages(t *testing.T) {
	t.Parallel()
	f := &fakeTools{}
	f.set(bashTool)
	s := f.server()
	defer s.Close()
	ctx := context.Background()
	if out := s.Handle(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash","arguments":{}}}`)); !bytes.Contains(out, []byte(`"error"`)) {
		t.Fatalf("a call before initialize: %s", out)
	}
	s.Handle(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`))
	for _, bad := range []string{
		``, `null`, `[]`, `{"jsonrpc":"2.0","id":2}`, `{"jsonrpc":"2.0","id":{"x":1},"method":"tools/call"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":"bash"}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"arguments":{}}}`,
		`{"jsonrpc":"2.0","id":5,"result":{}}`,
	} {
		out := s.Handle(ctx, json.RawMessage(bad))
		if out != nil && !bytes.Contains(out, []byte(`"error"`)) {
			t.Errorf("%q answered without an error: %s", bad, out)
		}
	}
	if len(f.calls) != 0 {
		t.Fatalf("a hostile message ran a tool: %q", f.calls)
	}
}

// TestMCPInBandCancelsACallWhoseTurnEnds checks that a call whose context ends (Claude
// interrupted) is cancelled in the tool too, and answered.
func TestMCPInBandCancelsACallWhoseTurnEnds(t *testing.T) {
	t.Parallel()
	f := &fakeTools{block: make(chan struct{}), ended: make(chan error, 1)}
	f.set(bashTool)
	s := f.server()
	defer s.Close()
	s.Handle(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`))
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan json.RawMessage, 1)
	go func() {
		out <- s.Handle(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"bash","arguments":{}}}`))
	}()
	for {
		f.mu.Lock()
		n := len(f.calls)
		f.mu.Unlock()
		if n == 1 {
			break
		}
		select {
		case got := <-out:
			t.Fatalf("answered before the tool ran: %s", got)
		default:
		}
	}
	cancel()
	if got := <-out; !bytes.Contains(got, []byte(`"id":7`)) || !bytes.Contains(got, []byte(`cancelled`)) {
		t.Fatalf("answer %s", got)
	}
	if err := <-f.ended; err == nil {
		t.Fatal("the tool's context did not end")
	}
}
