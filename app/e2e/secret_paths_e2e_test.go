package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"exo/harness/daemon/client"
)

// pathTok is a sealed secret with the characters JSON, URL and HTML escaping change, long
// enough that base64 and hex tools wrap it, and without runs of hex digits (the database is
// full of hashes). pathKey is the model's API key.
const (
	pathTok = `tok/Qz7+Wx9=Kp "Rv" <Lm&Nj> Ty?Hb%Gd_Fs-Xw.Zq~Vu!Jc*Pe(Ys)Ok`
	pathKey = "sk-path-QWxzKpRvLmNjTyHbGdFsXwZqVuJcPe"
)

// pathForms returns each form of v the redactor catches, by name, with the shortest run of it
// that counts as a leak: 6 bytes (secrets.MinPartial) for forms with readable characters,
// 12 or 14 for the JSON-escaped ones (a run of 6 can be just "\u003e"), 16 for hex and base64
// (shorter runs of those occur by chance in hashes and ids).
func pathForms(v string) map[string]struct {
	text string
	run  int
} {
	type form = struct {
		text string
		run  int
	}
	j, _ := json.Marshal(v)
	jj, _ := json.Marshal(string(j[1 : len(j)-1]))
	var nb bytes.Buffer
	enc := json.NewEncoder(&nb)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	n := strings.TrimSpace(nb.String())
	b := []byte(v)
	return map[string]form{
		"raw": {v, 6}, "json": {string(j[1 : len(j)-1]), 12}, "json-noescape": {n[1 : len(n)-1], 6},
		"json-twice": {string(jj[1 : len(jj)-1]), 14}, "url-query": {url.QueryEscape(v), 6}, "url-path": {url.PathEscape(v), 6},
		"hex": {hex.EncodeToString(b), 16}, "HEX": {strings.ToUpper(hex.EncodeToString(b)), 16},
		"base64": {base64.StdEncoding.EncodeToString(b), 16}, "base64url": {base64.RawURLEncoding.EncodeToString(b), 16},
	}
}

// leaksIn returns the forms of the secrets (and a run of each) that b holds.
func leaksIn(b []byte) []string {
	var out []string
	for _, v := range []string{pathTok, pathKey} {
		for name, f := range pathForms(v) {
			for i := 0; i+f.run <= len(f.text); i++ {
				if k := bytes.Index(b, []byte(f.text[i:i+f.run])); k >= 0 {
					out = append(out, fmt.Sprintf("%s %q in %q", name, f.text[i:i+f.run], b[max(0, k-60):min(len(b), k+80)]))
					break
				}
			}
		}
	}
	return out
}

// splitChat is a Chat Completions endpoint that streams each reply's text and tool-call
// arguments in 3-byte deltas (so a secret straddles many of them) and records request bodies.
type splitChat struct {
	*httptest.Server
	mu      sync.Mutex
	replies []chatTurn
	bodies  [][]byte
}

// chatTurn is one reply of splitChat.
type chatTurn struct {
	text  string
	calls [][3]string // id, name, arguments
}

func newSplitChat(replies ...chatTurn) *splitChat {
	s := &splitChat{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

func (s *splitChat) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	rep := s.replies[min(len(s.bodies), len(s.replies))-1]
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "split",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
		w.(http.Flusher).Flush()
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	for i := 0; i < len(rep.text); i += 3 {
		chunk(map[string]any{"content": rep.text[i:min(len(rep.text), i+3)]}, nil)
	}
	for i, c := range rep.calls {
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c[0], "type": "function",
			"function": map[string]any{"name": c[1], "arguments": ""}}}}, nil)
		for k := 0; k < len(c[2]); k += 5 {
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": c[2][k:min(len(c[2]), k+5)]}}}}, nil)
		}
	}
	finish := "stop"
	if len(rep.calls) > 0 {
		finish = "tool_calls"
	}
	chunk(map[string]any{}, finish)
	fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"split\",\"choices\":[],\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":10,\"total_tokens\":60}}\n\ndata: [DONE]\n\n")
}

// requests returns the request bodies so far.
func (s *splitChat) requests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.bodies...)
}

// otlpSink records the raw bodies of OTLP/HTTP exports.
type otlpSink struct {
	*httptest.Server
	mu   sync.Mutex
	body bytes.Buffer
}

func newOTLPSink() *otlpSink {
	s := &otlpSink{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.body.Write(b)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	return s
}

// bytes returns everything exported so far.
func (s *otlpSink) bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]byte(nil), s.body.Bytes()...)
}

// rawTail reads a session's NDJSON tail stream straight off the daemon's socket (the frames as
// they cross the wire, coalesced deltas included) until ctx ends.
func rawTail(ctx context.Context, t *testing.T, home, session string, into *syncBuffer) {
	dir, err := client.RuntimeDir()
	if err != nil {
		t.Fatal(err)
	}
	sock, err := client.SocketPath(dir, home)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://exo/v1/sessions/"+session+"/events?after=0&attach=1&client=rawtail", nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Errorf("tail stream: %v", err)
		return
	}
	defer resp.Body.Close()
	io.Copy(into, resp.Body)
}

// syncBuffer is a bytes.Buffer safe for one writer and readers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]byte(nil), s.b.Bytes()...)
}

// TestSecretEveryPath is the attacker's test of every output path at once. Two secrets are
// sealed (the model's key and a token with characters every escaping changes); the user pastes
// the token into the prompt; the agent prints it in every form exo catches, across the inline
// head/tail cut, through read_file, grep's line cut and a background task, puts it in a tool
// call's arguments (beyond the summary's cut too), and the model's answer repeats it in 3-byte
// deltas. Hooks copy their stdin outside the workspace, OTel exports to a local OTLP server, the
// app is attached in tmux and its screen captured all along, and a raw client reads the
// daemon's NDJSON tail stream. Then every byte that left is searched: exo run's stdout and
// stderr, exo log --json, exo tail --json, the NDJSON frames, the screens, the hooks' stdin,
// the OTLP exports, each model request body, and every file in EXO_HOME (exo.db, artifacts,
// daemon.log …) except the shadow repository, which holds the workspace's files.
func TestSecretEveryPath(t *testing.T) {
	t.Parallel()
	home, ws, outside := t.TempDir(), t.TempDir(), t.TempDir()
	var formLines []string
	for _, f := range pathForms(pathTok) {
		formLines = append(formLines, f.text)
	}
	b64 := base64.StdEncoding.EncodeToString([]byte(pathTok[:len(pathTok)/3*3]))
	formLines = append(formLines, wrapAt(b64, 64), wrapAt(b64, 76), wrapAt(hex.EncodeToString([]byte(pathTok)), 60))
	os.WriteFile(filepath.Join(ws, "s.txt"), []byte(pathTok), 0o600)
	os.WriteFile(filepath.Join(ws, "forms.txt"), []byte(strings.Join(formLines, "\n")+"\n"), 0o600)
	os.WriteFile(filepath.Join(ws, "long.txt"), []byte("xxxx"+strings.Repeat("x", 276)+pathTok+strings.Repeat("y", 100)+"\n"), 0o600)
	os.MkdirAll(filepath.Join(ws, ".exo"), 0o755)
	hook := func() []map[string]any {
		return []map[string]any{{"hooks": []map[string]any{{"type": "command", "command": "cat >> " + filepath.Join(outside, "hooks.log") + "; echo >> " + filepath.Join(outside, "hooks.log")}}}}
	}
	settings, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": hook(), "PostToolUse": hook(), "UserPromptSubmit": hook(), "Stop": hook()}})
	os.WriteFile(filepath.Join(ws, ".exo", "settings.json"), settings, 0o644)

	argTok, _ := json.Marshal(pathTok)
	bashArgs := func(cmd string) string { b, _ := json.Marshal(map[string]any{"command": cmd}); return string(b) }
	srv := newSplitChat(
		chatTurn{text: "Looking.", calls: [][3]string{
			{"c1", "bash", bashArgs("cat forms.txt")},
			{"c2", "bash", bashArgs("head -c 32755 /dev/zero | tr '\\0' a; cat s.txt; head -c 40000 /dev/zero | tr '\\0' b")},
			{"c3", "bash", bashArgs("head -c 40000 /dev/zero | tr '\\0' a; cat s.txt; head -c 32755 /dev/zero | tr '\\0' b")},
			{"c4", "read_file", `{"path":"s.txt"}`},
			{"c5", "grep", `{"pattern":"xxxx","path":"."}`},
			{"c6", "bash", `{"command":"echo ` + strings.Repeat("x", 105) + ` ` + string(argTok[1:len(argTok)-1]) + ` > /dev/null"}`},
			{"c7", "bash", `{"command":"sleep 0.2; cat s.txt","background":true}`},
		}},
		chatTurn{text: "The token is " + pathTok + " and the key " + pathKey + "; done."},
	)
	defer srv.Close()
	otlp := newOTLPSink()
	defer otlp.Close()
	env := []string{"TOK=" + pathTok, "KEY=" + pathKey, "OTEL_EXPORTER_OTLP_ENDPOINT=" + otlp.URL,
		"OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf", "OTEL_BSP_SCHEDULE_DELAY=100", "OTEL_METRIC_EXPORT_INTERVAL=200"}
	for _, args := range [][]string{{"secret", "set", "tok", "--env", "TOK"}, {"secret", "set", "key", "--env", "KEY"},
		{"model", "register", "m", "--provider", "openai-compatible", "--base-url", srv.URL + "/v1", "--secret", "key"}} {
		if _, errs, code := exoEnv(t, home, ws, env, args...); code != 0 {
			t.Fatalf("exo %v: %s", args, errs)
		}
	}
	// The project's hooks run only once the user trusts them.
	if _, errs, code := exoEnv(t, home, ws, env, "trust", "--yes"); code != 0 {
		t.Fatalf("exo trust: %s", errs)
	}
	id := strings.TrimSpace(mustRunIn(t, home, ws, "new", "--name", "leaky", "--workspace", ws))

	var screens bytes.Buffer
	scr := startTmux(t, 160, 50, "cd "+ws+" && EXO_HOME="+home+" "+exoBin+" attach leaky --theme dark")
	scr.waitFor("the app", contains("ask, /command or !shell"))
	ctx, stopTail := context.WithCancel(context.Background())
	var wire syncBuffer
	tailDone := make(chan struct{})
	go func() { defer close(tailDone); rawTail(ctx, t, home, id, &wire) }()
	capDone := make(chan struct{})
	go func() {
		defer close(capDone)
		for ctx.Err() == nil {
			out, _ := exec.Command("tmux", "-L", scr.socket, "capture-pane", "-p", "-J", "-t", "e2e").Output()
			screens.Write(out)
			time.Sleep(40 * time.Millisecond)
		}
	}()

	out, errs, code := exoEnv(t, home, ws, env, "run", "--session", id, "here is my token "+pathTok+", keep it safe")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	time.Sleep(time.Second) // the background task finishes and is recorded
	logOut, _, _ := exoEnv(t, home, ws, env, "log", "--json", id)
	tctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	tailCmd := exec.CommandContext(tctx, exoBin, "tail", id, "--json", "--from", "1")
	tailCmd.Env = append(os.Environ(), "EXO_HOME="+home)
	tailOut, _ := tailCmd.Output()
	cancel()
	stopTail()
	<-tailDone
	<-capDone
	scr.keys("C-q")
	exoEnv(t, home, ws, env, "daemon", "stop")

	if !strings.Contains(logOut, `‹secret:tok›`) || !bytes.Contains(tailOut, []byte(`‹secret:tok›`)) {
		t.Errorf("exo log/tail do not show the redacted token:\n%s", logOut)
	}
	places := map[string][]byte{"exo run stdout": []byte(out), "exo run stderr": []byte(errs), "exo log --json": []byte(logOut),
		"exo tail --json": tailOut, "the NDJSON tail stream": wire.Bytes(), "the app's screens": screens.Bytes(), "the OTLP exports": otlp.bytes()}
	places["the hooks' stdin"], _ = os.ReadFile(filepath.Join(outside, "hooks.log"))
	for i, b := range srv.requests() {
		places[fmt.Sprintf("model request %d", i)] = b
	}
	filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && !strings.Contains(p, "/shadow/") {
			places[p], _ = os.ReadFile(p)
		}
		return nil
	})
	for _, must := range []string{"the NDJSON tail stream", "the hooks' stdin", "the OTLP exports", "the app's screens"} {
		if len(places[must]) == 0 {
			t.Errorf("%s: nothing was captured", must)
		}
	}
	for where, b := range places {
		if l := leaksIn(b); len(l) > 0 {
			t.Errorf("%s (%d bytes) holds %v", where, len(b), l)
		}
	}
	t.Logf("searched %d places", len(places))
}

// wrapAt breaks s into lines of width characters.
func wrapAt(s string, width int) string {
	var b strings.Builder
	for len(s) > width {
		b.WriteString(s[:width] + "\n")
		s = s[width:]
	}
	return b.String() + s
}
