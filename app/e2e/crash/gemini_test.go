package crash

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// geminiCLIVersion is the Gemini CLI .ci/run installs (acp:gemini).
const geminiCLIVersion = "0.61.0"

// needGeminiCLI skips without the Gemini CLI where the daemon looks for it (on PATH,
// $EXO_ACP_PATH or exo's CI cache), and fails when EXO_REQUIRE_ACP is set.
func needGeminiCLI(t *testing.T) {
	t.Helper()
	dirs := append(filepath.SplitList(os.Getenv("PATH")), filepath.SplitList(os.Getenv("EXO_ACP_PATH"))...)
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".cache", "exo-ci", "gemini-cli-"+geminiCLIVersion, "node_modules", ".bin"))
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "gemini")); err == nil {
			return
		}
	}
	if os.Getenv("EXO_REQUIRE_ACP") != "" {
		t.Fatal("EXO_REQUIRE_ACP is set but the Gemini CLI is not found")
	}
	t.Skipf("the Gemini CLI is needed (.ci/run installs @google/gemini-cli@%s)", geminiCLIVersion)
}

// fakeGeminiAPI answers the Gemini CLI as the Gemini API would: to "write slowly" a call of
// exo's bash whose command half writes a file and sleeps, to its result "Done.", to "go on"
// "Carrying on."; it keeps the stream requests' bodies.
type fakeGeminiAPI struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
}

func newFakeGeminiAPI(t *testing.T) *fakeGeminiAPI {
	f := &fakeGeminiAPI{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"candidates": [{"content": {"parts": [{"text": "{\"next_speaker\": \"user\"}"}],"role": "model"},"finishReason": "STOP","index": 0}],"modelVersion": "gemini-2.5-flash"}`)
			return
		}
		f.mu.Lock()
		f.bodies = append(f.bodies, string(body))
		f.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		last, result := lastGeminiContent(body)
		switch {
		case result:
			fmt.Fprint(w, geminiChunk(`{"text": "Done."}`, "ZG9uZQ"))
		case strings.Contains(last, "go on"):
			fmt.Fprint(w, geminiChunk(`{"text": "Carrying on."}`, "Z29vbg"))
		default:
			fmt.Fprint(w, geminiChunk(`{"functionCall": {"name": "mcp_exo_bash", "args": {"command": "echo part > half.txt; sleep 60; echo rest >> half.txt"}}, "thoughtSignature": "CikBcsjafFK168IbtVtoxVV0Tsn8O+eU45rzJahzwuKGmMbdMdfpmNpgBwpl"}`, "c2xvdw"))
		}
	}))
	t.Cleanup(f.Close)
	return f
}

// geminiChunk is a one-chunk streamed answer holding part.
func geminiChunk(part, respID string) string {
	return `data: {"candidates": [{"content": {"parts": [` + part + `],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 900,"candidatesTokenCount": 9,"totalTokenCount": 909},"modelVersion": "gemini-2.5-flash","responseId": "` + respID + `"}` + "\r\n\r\n"
}

// lastGeminiContent is the text of a request's last content, and whether it holds a function
// response.
func lastGeminiContent(body []byte) (string, bool) {
	var req struct {
		Contents []struct {
			Parts []struct {
				Text             string          `json:"text"`
				FunctionResponse json.RawMessage `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if json.Unmarshal(body, &req) != nil || len(req.Contents) == 0 {
		return "", false
	}
	var text strings.Builder
	result := false
	for _, p := range req.Contents[len(req.Contents)-1].Parts {
		text.WriteString(p.Text)
		result = result || len(p.FunctionResponse) > 0
	}
	return text.String(), result
}

// TestKillDuringGeminiCLIStep kills the daemon (SIGKILL) while the Gemini CLI's call of exo's
// bash runs a command that has half written a file: nothing of the daemon's agent or its
// command is left, the session opens interrupted with the call closed as interrupted after its
// answer, and the next turn starts a new Gemini CLI that is given the killed turn's prompt.
func TestKillDuringGeminiCLIStep(t *testing.T) {
	t.Parallel()
	needGeminiCLI(t)
	srv := newFakeGeminiAPI(t)
	home, ws := t.TempDir(), t.TempDir()
	if out, errs, code := exoEnv(t, home, ws, []string{"CRASH_GEMINI_KEY=AIzaSyCRASH-0123456789abcdef"}, "secret", "set", "gemini-key", "--env", "CRASH_GEMINI_KEY"); code != 0 {
		t.Fatalf("secret set: exit %d %s %s", code, out, errs)
	}
	mustRunIn(t, home, ws, "model", "register", "g", "--provider", "gemini", "--model-id", "gemini-2.5-flash",
		"--base-url", srv.URL, "--secret", "gemini-key")
	killedAt(t, home, ws, "after.tool.started@3s", "run", "--executor", "acp:gemini", "write slowly")
	noProcessLeft(t, home)
	if b, _ := os.ReadFile(filepath.Join(ws, "half.txt")); string(b) != "part\n" {
		t.Fatalf("the kill did not land while the command ran: half.txt %q", b)
	}
	rows := sessionRows(t, home)
	if len(rows) != 1 || rows[0].Status != "interrupted" {
		t.Fatalf("after the kill the session is %+v, want interrupted", rows)
	}
	log := mustRun(t, home, "log", rows[0].ID, "--json")
	for _, s := range []string{`"turn.interrupted"`, `"model.completed"`, `"interrupted":true`} {
		if !strings.Contains(log, s) {
			t.Fatalf("no %s after the kill:\n%s", s, log)
		}
	}
	inOrder(t, log)
	checkRecovered(t, home, "", "after.tool.started@3s")
	if out, errs, code := exoEnv(t, home, ws, nil, "run", "--session", rows[0].ID, "--executor", "acp:gemini", "go on"); code != 0 || !strings.Contains(out, "Carrying on.") {
		t.Fatalf("the next turn: exit %d %s %s", code, out, errs)
	}
	srv.mu.Lock()
	last := srv.bodies[len(srv.bodies)-1]
	srv.mu.Unlock()
	if !strings.Contains(last, "write slowly") || !strings.Contains(last, "go on") {
		t.Fatalf("the restarted CLI was not given the killed turn:\n%.3000s", last)
	}
	if out, errs, code := run(t, home, "verify"); code != 0 {
		t.Fatalf("verify after the next turn: exit %d %s %s", code, out, errs)
	}
}
