package pumptest

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"exo/harness/extexec"
)

// Env names the variable that makes the test binary run as a peer; its value is the framing.
const Env = "EXO_PUMP_PEER"

// Main runs the peer and exits when Env is set; a package's TestMain calls it first.
func Main() {
	if f := os.Getenv(Env); f != "" {
		os.Exit(run(f, os.Stdin, os.Stdout))
	}
}

// Methods the peer answers (a request's method, or a control request's subtype), each with its
// params (a control request's other fields):
const (
	// Echo answers with the params.
	Echo = "echo"
	// Stream writes N notifications of Size bytes of text, then answers.
	Stream = "stream"
	// Ask sends exo one request (method "tool", a control request "can_use_tool"), waits for
	// its answer and answers with that answer's result.
	Ask = "ask"
	// Say writes the bytes of B64 as they are (no newline added; %ID% stands for the request's
	// id), then answers if Answer, or exits with status Exit if not 0.
	Say = "say"
	// Big answers with a string of Size bytes; with Cut the answer has no newline and the peer
	// exits with status 3 right after it.
	Big = "big"
	// Hang never answers; it writes a notification (a line of type "hanging" for Claude) with
	// method "hanging" first.
	Hang = "hang"
)

// Params are the params of every method.
type Params struct {
	N      int    `json:"n,omitempty"`
	Size   int    `json:"size,omitempty"`
	B64    string `json:"b64,omitempty"`
	Answer bool   `json:"answer,omitempty"`
	Cut    bool   `json:"cut,omitempty"`
	// Exit ends the peer (with this status) after Say's bytes, without answering.
	Exit int `json:"exit,omitempty"`
}

// msg is any line of either framing, as far as the peer reads it.
type msg struct {
	ID       json.RawMessage `json:"id"`
	Method   string          `json:"method"`
	Params   json.RawMessage `json:"params"`
	Result   json.RawMessage `json:"result"`
	Type     string          `json:"type"`
	Request  json.RawMessage `json:"request"`
	Response json.RawMessage `json:"response"`
	ReqID    string          `json:"request_id"`
}

// peer writes one framing's lines.
type peer struct {
	claude bool
	in     *bufio.Reader
	out    *bufio.Writer
}

func run(framing string, stdin io.Reader, stdout io.Writer) int {
	if framing != "rpc" && framing != "claude" {
		fmt.Fprintf(os.Stderr, "pumptest: unknown framing %q\n", framing)
		return 2
	}
	p := &peer{claude: framing == "claude", in: bufio.NewReaderSize(stdin, 1<<20), out: bufio.NewWriterSize(stdout, 1<<16)}
	for {
		m, ok := p.next()
		if !ok {
			return 0
		}
		id, method, params := p.request(m)
		if method == "" {
			continue
		}
		var pa Params
		_ = json.Unmarshal(params, &pa)
		switch method {
		case Echo:
			p.answer(id, params)
		case Stream:
			p.stream(pa)
			p.answer(id, json.RawMessage(`{}`))
		case Ask:
			p.answer(id, p.ask())
		case Say:
			b, _ := base64.StdEncoding.DecodeString(pa.B64)
			p.out.Write(bytes.ReplaceAll(b, []byte("%ID%"), id))
			if pa.Exit != 0 {
				p.out.Flush()
				return pa.Exit
			}
			if pa.Answer {
				p.answer(id, json.RawMessage(`{}`))
			}
		case Big:
			p.big(id, pa)
			if pa.Cut {
				p.out.Flush()
				return 3
			}
		case Hang:
			if p.claude {
				fmt.Fprintln(p.out, `{"type":"hanging"}`)
			} else {
				fmt.Fprintln(p.out, `{"method":"hanging"}`)
			}
		}
		p.out.Flush()
	}
}

// next reads the next message; false at EOF.
func (p *peer) next() (msg, bool) {
	for {
		line, err := p.in.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var m msg
			if json.Unmarshal(line, &m) == nil {
				return m, true
			}
		}
		if err != nil {
			return msg{}, false
		}
	}
}

// request reads a request from exo: its id, method and params.
func (p *peer) request(m msg) (id json.RawMessage, method string, params json.RawMessage) {
	if !p.claude {
		return m.ID, m.Method, m.Params
	}
	if m.Type != "control_request" {
		return nil, "", nil
	}
	var r struct {
		Subtype string `json:"subtype"`
	}
	_ = json.Unmarshal(m.Request, &r)
	id, _ = json.Marshal(m.ReqID)
	return id, r.Subtype, m.Request
}

// answer writes the answer to request id.
func (p *peer) answer(id, result json.RawMessage) {
	if p.claude {
		fmt.Fprintf(p.out, `{"type":"control_response","response":{"subtype":"success","request_id":%s,"response":%s}}`+"\n", id, result)
		return
	}
	fmt.Fprintf(p.out, `{"id":%s,"result":%s}`+"\n", id, result)
}

// stream writes pa.N notifications (stream events for Claude) of pa.Size bytes of text.
func (p *peer) stream(pa Params) {
	text := strings.Repeat("x", pa.Size)
	for i := 0; i < pa.N; i++ {
		if p.claude {
			fmt.Fprintf(p.out, `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"%s"}}}`+"\n", text)
		} else {
			fmt.Fprintf(p.out, `{"method":"item/agentMessage/delta","params":{"threadId":"t","turnId":"u","itemId":"i","delta":"%s"}}`+"\n", text)
		}
	}
}

// ask sends exo a request and returns its answer's result.
func (p *peer) ask() json.RawMessage {
	if p.claude {
		fmt.Fprintln(p.out, `{"type":"control_request","request_id":"peer_1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"},"tool_use_id":"toolu_1"}}`)
	} else {
		fmt.Fprintln(p.out, `{"id":"peer_1","method":"tool","params":{"command":"ls"}}`)
	}
	p.out.Flush()
	for {
		m, ok := p.next()
		if !ok {
			return json.RawMessage(`null`)
		}
		if p.claude && m.Type == "control_response" {
			var r struct {
				Response json.RawMessage `json:"response"`
			}
			_ = json.Unmarshal(m.Response, &r)
			return r.Response
		}
		if !p.claude && m.Method == "" && string(m.ID) == `"peer_1"` {
			return m.Result
		}
	}
}

// big answers with a string of pa.Size bytes, without its newline if pa.Cut.
func (p *peer) big(id json.RawMessage, pa Params) {
	if p.claude {
		fmt.Fprintf(p.out, `{"type":"control_response","response":{"subtype":"success","request_id":%s,"response":"`, id)
	} else {
		fmt.Fprintf(p.out, `{"id":%s,"result":"`, id)
	}
	chunk := bytes.Repeat([]byte("a"), 1<<16)
	for left := pa.Size; left > 0; left -= len(chunk) {
		p.out.Write(chunk[:min(left, len(chunk))])
	}
	if p.claude {
		p.out.WriteString(`"}}`)
	} else {
		p.out.WriteString(`"}`)
	}
	if !pa.Cut {
		p.out.WriteString("\n")
	}
}

// Start runs the test binary (whose TestMain calls Main) as a peer speaking framing; it is
// stopped when the test ends.
func Start(tb testing.TB, framing string) *extexec.Process {
	tb.Helper()
	p, err := extexec.Start(extexec.Spec{Path: os.Args[0], Args: []string{"-test.run=^$"}, Dir: tb.TempDir(),
		Env: map[string]string{Env: framing}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { p.Stop(5 * time.Second) })
	return p
}
