package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/exectest"
	"exo/sandbox"
)

// geminiSealedKey is the Gemini key exo seals; it must reach the fake Gemini API and nothing else.
const geminiSealedKey = "AIzaSyEXO-gemini-SEALED-4242424242424242"

// geminiCLI finds the Gemini CLI or skips the test saying why (fails when EXO_REQUIRE_ACP is set).
func geminiCLI(t testing.TB) string {
	t.Helper()
	bin, err := FindCommand("gemini")
	if err != nil {
		if os.Getenv("EXO_REQUIRE_ACP") != "" {
			t.Fatalf("EXO_REQUIRE_ACP is set but: %v", err)
		}
		t.Skipf("the Gemini CLI is needed (.ci/run installs @google/gemini-cli@%s): %v", GeminiCLIVersion, err)
	}
	return bin
}

// fakeGemini is a local server speaking the Gemini API's wire format: it answers each
// streamGenerateContent whose last user content holds a function response or text with the
// next scripted turn chosen by the function make, generateContent (the CLI's side questions)
// with a plain JSON answer, countTokens with a count, and records every request.
type fakeGemini struct {
	*httptest.Server
	mu    sync.Mutex
	calls []geminiCall
	turn  func(body []byte) string
	// hanging is closed when the first request asking for a "slow answer" has sent its first
	// chunk and hangs until the caller goes away.
	hanging chan struct{}
	hung    sync.Once
	// slow is set once a request hung: later ones (whose history holds the prompt) are answered.
	slow atomic.Bool
}

// geminiCall is one request the fake server received.
type geminiCall struct {
	Path, Key string
	Body      []byte
}

func newFakeGemini(t *testing.T, turn func(body []byte) string) *fakeGemini {
	f := &fakeGemini{turn: turn, hanging: make(chan struct{})}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.calls = append(f.calls, geminiCall{Path: r.URL.Path, Key: r.Header.Get("X-Goog-Api-Key") + r.URL.Query().Get("key"), Body: body})
		f.mu.Unlock()
		switch {
		case strings.HasSuffix(r.URL.Path, ":countTokens"):
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"totalTokens": 42}`)
		case strings.HasSuffix(r.URL.Path, ":streamGenerateContent") && strings.Contains(string(body), "slow answer") && f.slow.CompareAndSwap(false, true):
			w.Header().Set("Content-Type", "text/event-stream")
			first, _, _ := strings.Cut(geminiText("Thinking about it"), "\r\n\r\n")
			fmt.Fprint(w, first+"\r\n\r\n")
			w.(http.Flusher).Flush()
			f.hung.Do(func() { close(f.hanging) })
			<-r.Context().Done()
		case strings.HasSuffix(r.URL.Path, ":streamGenerateContent"):
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, f.turn(body))
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"candidates": [{"content": {"parts": [{"text": "{\"next_speaker\": \"user\", \"reasoning\": \"done\"}"}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 10,"candidatesTokenCount": 5,"totalTokenCount": 15},"modelVersion": "gemini-2.5-flash"}`)
		}
	}))
	t.Cleanup(f.Close)
	return f
}

// streamCalls are the recorded streamGenerateContent requests.
func (f *fakeGemini) streamCalls() []geminiCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []geminiCall
	for _, c := range f.calls {
		if strings.HasSuffix(c.Path, ":streamGenerateContent") {
			out = append(out, c)
		}
	}
	return out
}

// all are every recorded request.
func (f *fakeGemini) all() []geminiCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]geminiCall(nil), f.calls...)
}

// geminiText is a streamed text answer in the live service's format.
func geminiText(text string) string {
	t, _ := json.Marshal(text)
	return `data: {"candidates": [{"content": {"parts": [{"text": ` + string(t) + `}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 900,"candidatesTokenCount": 4,"totalTokenCount": 904},"modelVersion": "gemini-2.5-flash","responseId": "ZmFrZTE"}` + "\r\n\r\n" +
		`data: {"candidates": [{"content": {"parts": [{"text": ""}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 900,"candidatesTokenCount": 9,"totalTokenCount": 921,"thoughtsTokenCount": 12},"modelVersion": "gemini-2.5-flash","responseId": "ZmFrZTE"}` + "\r\n\r\n"
}

// geminiCallTurn is a streamed function call with a thought signature.
func geminiCallTurn(name, args string) string {
	return `data: {"candidates": [{"content": {"parts": [{"functionCall": {"name": "` + name + `","args": ` + args + `},"thoughtSignature": "CikBcsjafFK168IbtVtoxVV0Tsn8O+eU45rzJahzwuKGmMbdMdfpmNpgBwpl"}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 950,"candidatesTokenCount": 14,"totalTokenCount": 1068,"thoughtsTokenCount": 104},"modelVersion": "gemini-2.5-flash","responseId": "ZmFrZTI"}` + "\r\n\r\n"
}

// geminiFixture is a harness whose Gemini model (its key sealed) is served by a fake Gemini API.
func geminiFixture(t *testing.T, turn func(body []byte) string) (*fixture, *fakeGemini) {
	t.Helper()
	srv := newFakeGemini(t, turn)
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	h.SetSecret("gemini-key", []byte(geminiSealedKey))
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "gem", Provider: "gemini", ModelID: "gemini-2.5-flash", BaseURL: srv.URL, Secret: "gemini-key"}); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("# sample\n"), 0o644)
	s, err := h.NewSession(harness.NewSessionOptions{Name: "gem", Workspace: ws, Model: "gem"})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{h: h, s: s, ws: ws}, srv
}

// checkGeminiKey checks the sealed key reached the fake API on every call and nowhere else:
// not in a request body, not in the environment of the agent's processes (nor IS_SANDBOX), not
// in the agent's state folder.
func checkGeminiKey(t *testing.T, srv *fakeGemini, x *Executor, f *fixture) {
	t.Helper()
	calls := srv.all()
	if len(calls) == 0 {
		t.Fatal("the Gemini CLI made no model call")
	}
	for i, c := range calls {
		if c.Key != geminiSealedKey {
			t.Errorf("call %d (%s) reached the API with key %q, not the sealed one", i, c.Path, c.Key)
		}
		if strings.Contains(string(c.Body), geminiSealedKey) {
			t.Errorf("call %d body holds the sealed key", i)
		}
	}
	var environs int
	for _, pid := range descendants(x.Session(f.s.ID).Proc.(*proc).Pid()) {
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil {
			continue // exited meanwhile
		}
		if strings.Contains(string(env), "GEMINI_API_KEY=exo-") {
			environs++ // the agent itself, holding the session token
		}
		if strings.Contains(string(env), geminiSealedKey) || strings.Contains(string(env), "IS_SANDBOX") {
			t.Errorf("the environment of the agent's process %d: %q", pid, env)
		}
	}
	if environs == 0 {
		t.Error("no agent process holding the session token to read the environment of")
	}
	filepath.WalkDir(x.Session(f.s.ID).Dirs.Root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), geminiSealedKey) {
				t.Errorf("%s holds the sealed key", p)
			}
		}
		return nil
	})
}

// The real Gemini CLI (acp:gemini --acp) answers through exo's endpoint, which speaks the
// Gemini API, swaps the session token for the sealed key and records the call.
func TestGeminiCLIAnswers(t *testing.T) {
	f, srv := geminiFixture(t, func([]byte) string { return geminiText("hello from Gemini through exo") })
	x := f.executor(t, Options{Command: []string{geminiCLI(t)}}) // acp:gemini: exo adds --acp
	res, err := x.Prompt(context.Background(), f.s.ID, "say hello", "test")
	okResult(t, res, err)
	if !strings.Contains(res.Response, "hello from Gemini through exo") {
		t.Fatalf("response %q (events %s)", res.Response, exectest.Types(f.events(t, f.s.ID)))
	}
	evs := f.events(t, f.s.ID)
	var completed int
	for _, e := range evs {
		if e.Type == harness.TypeModelCompleted && strings.Contains(string(e.Data), "hello from Gemini through exo") {
			completed++
		}
	}
	if completed == 0 {
		t.Fatalf("no model.completed recorded the answer: %s", exectest.Types(evs))
	}
	for _, c := range srv.streamCalls() {
		if !strings.Contains(c.Path, "/v1beta/models/gemini-2.5-flash:") {
			t.Errorf("call to %s", c.Path)
		}
	}
	checkGeminiKey(t, srv, x, f)
	checkAgentCPUWeight(t, x.Session(f.s.ID).Proc.(*proc))
}

// The Gemini CLI calls exo's bash (offered over MCP as mcp_exo_bash): exo's approval policy
// answers the CLI's permission request, the command runs in exo's sandbox in the workspace, the
// output goes back to the model as the function response, and the log records the call under
// exo's name.
func TestGeminiCLIRunsBashThroughExo(t *testing.T) {
	f, srv := geminiFixture(t, func(body []byte) string {
		if strings.Contains(string(body), `"functionResponse"`) {
			return geminiText("made.txt is written")
		}
		return geminiCallTurn("mcp_exo_bash", `{"command": "echo made-by-gemini > made.txt && cat made.txt"}`)
	})
	x := f.executor(t, Options{Command: []string{geminiCLI(t), "--acp"}, Exec: executor.Options{
		Approvals: map[string]string{"bash": "ask"}, ApprovalTimeout: time.Minute}})
	answerApprovals(t, f, executor.DecisionOnce)
	res, err := x.Prompt(context.Background(), f.s.ID, "write made.txt", "test")
	okResult(t, res, err)
	evs := f.events(t, f.s.ID)
	if b, err := os.ReadFile(filepath.Join(f.ws, "made.txt")); err != nil || string(b) != "made-by-gemini\n" {
		t.Fatalf("made.txt: %q %v (events %s)", b, err, exectest.Types(evs))
	}
	var ran bool
	for _, tc := range exectest.Payloads[harness.ToolCompleted](t, evs, harness.TypeToolCompleted) {
		if tc.Tool == "bash" && strings.Contains(tc.Output, "made-by-gemini") {
			ran = true
		}
	}
	if !ran {
		t.Fatalf("no tool.completed of exo's bash: %s", exectest.Types(evs))
	}
	if ar := exectest.Payloads[harness.ApprovalResolved](t, evs, harness.TypeApprovalResolved); len(ar) == 0 || ar[0].Decision != "once" {
		t.Fatalf("approvals %+v", ar)
	}
	calls := srv.streamCalls()
	last := string(calls[len(calls)-1].Body)
	if !strings.Contains(last, "made-by-gemini") || !strings.Contains(last, `"thoughtSignature":"CikBcsjafFK168IbtVtoxVV0Tsn8O+eU45rzJahzwuKGmMbdMdfpmNpgBwpl"`) {
		t.Fatalf("the bash output or the call's signature did not reach the model: %s", last)
	}
	checkGeminiKey(t, srv, x, f)
}

// descendants is pid and the processes under it (the Gemini CLI relaunches itself as a child).
func descendants(pid int) []int {
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", out[i]))
		for _, tf := range tasks {
			b, _ := os.ReadFile(tf)
			for _, f := range strings.Fields(string(b)) {
				var c int
				if _, err := fmt.Sscan(f, &c); err == nil {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// Cancelling a turn (Ctrl-C) while the Gemini CLI streams an answer sends session/cancel: the
// turn ends cancelled, the CLI lives on, and the next prompt is answered.
func TestGeminiCLICancels(t *testing.T) {
	f, srv := geminiFixture(t, func([]byte) string { return geminiText("hello again") })
	x := f.executor(t, Options{Command: []string{geminiCLI(t), "--acp"}})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-srv.hanging; cancel() }()
	res, err := x.Prompt(ctx, f.s.ID, "slow answer please", "test")
	if err != nil || !res.Cancelled {
		t.Fatalf("cancelled turn: %v %+v (events %s)", err, res, exectest.Types(f.events(t, f.s.ID)))
	}
	if !strings.Contains(exectest.Types(f.events(t, f.s.ID)), "turn.cancelled") {
		t.Fatalf("events %s", exectest.Types(f.events(t, f.s.ID)))
	}
	if !x.Session(f.s.ID).Proc.Alive() {
		t.Fatal("the Gemini CLI died on cancel")
	}
	res, err = x.Prompt(context.Background(), f.s.ID, "say hello", "test")
	okResult(t, res, err)
	if !strings.Contains(res.Response, "hello again") {
		t.Fatalf("after cancel: %+v", res)
	}
	checkGeminiKey(t, srv, x, f)
}

// A rewind to before the Gemini CLI's bash call removes the file it made, and the restarted CLI
// sees the conversation as of the rewind: the command's output is in no later request.
func TestGeminiCLIRewindRemovesToolsFile(t *testing.T) {
	f, srv := geminiFixture(t, func(body []byte) string {
		switch {
		case strings.Contains(string(body), "after rewind"):
			return geminiText("fresh start")
		case strings.Contains(string(body), `"functionResponse"`):
			return geminiText("made.txt is written")
		}
		return geminiCallTurn("mcp_exo_bash", `{"command": "echo made-by-gemini > made.txt && cat made.txt"}`)
	})
	bin := geminiCLI(t)
	x := f.executor(t, Options{Command: []string{bin, "--acp"}})
	res, err := x.Prompt(context.Background(), f.s.ID, "write made.txt", "test")
	okResult(t, res, err)
	if _, err := os.Stat(filepath.Join(f.ws, "made.txt")); err != nil {
		t.Fatalf("made.txt: %v (events %s)", err, exectest.Types(f.events(t, f.s.ID)))
	}
	x.Close()
	var at uint64
	for _, e := range f.events(t, f.s.ID) {
		if e.Type == harness.TypeSessionCreated {
			at = e.Seq
		}
	}
	if _, err := f.h.Rewind(f.s.ID, at); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "made.txt")); !os.IsNotExist(err) {
		t.Fatalf("made.txt is still there after the rewind: %v", err)
	}
	x2 := f.executor(t, Options{Command: []string{bin, "--acp"}})
	res, err = x2.Prompt(context.Background(), f.s.ID, "hello after rewind", "test")
	okResult(t, res, err)
	if !strings.Contains(res.Response, "fresh start") {
		t.Fatalf("after rewind: %+v", res)
	}
	calls := srv.streamCalls()
	last := string(calls[len(calls)-1].Body)
	if !strings.Contains(last, "after rewind") || strings.Contains(last, "made-by-gemini") {
		t.Fatalf("the restarted CLI's request:\n%s", last)
	}
	checkGeminiKey(t, srv, x2, f)
}
