package pumptest

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
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
	// Say writes the bytes of B64 as they are (no newline added), then answers if Answer.
	Say = "say"
	// Hang never answers.
	Hang = "hang"
)

// Params are the params of every method.
type Params struct {
	N      int    `json:"n,omitempty"`
	Size   int    `json:"size,omitempty"`
	B64    string `json:"b64,omitempty"`
	Answer bool   `json:"answer,omitempty"`
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
			p.out.Write(b)
			if pa.Exit != 0 {
				p.out.Flush()
				return pa.Exit
			}
			if pa.Answer {
				p.answer(id, json.RawMessage(`{}`))
			}
		case Hang:
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
