package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness/provider/providertest"
)

// TestRunThroughEachWireFormat runs `exo run` against local servers replaying recorded streams of
// each API (OpenAI Responses, Chat Completions, Anthropic Messages, Gemini) through the official
// SDK clients (or, for Gemini, the SDK's request types): the model calls a tool (list, write a file, run it), exo runs it in the sandbox and
// sends the result back, and the model answers.
func TestRunThroughEachWireFormat(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, provider, model, fixture string
		check                          func(t *testing.T, ws string, second []byte)
	}{
		{"responses", "openai", "gpt-4.1", "openai-responses", func(t *testing.T, ws string, second []byte) {
			if !strings.Contains(string(second), "README.md") {
				t.Fatalf("the list_dir result did not reach the model: %s", second)
			}
		}},
		{"chat", "openai-compatible", "llama3.2", "chat", func(t *testing.T, ws string, _ []byte) {
			if b, err := os.ReadFile(filepath.Join(ws, "hello.py")); err != nil || strings.Contains(string(b), "hello from the test") {
				t.Fatalf("write_file did not rewrite hello.py: %q %v", b, err)
			}
		}},
		{"anthropic", "anthropic", "claude-sonnet-4-5", "anthropic", func(t *testing.T, ws string, second []byte) {
			if !strings.Contains(string(second), "hello from the test") {
				t.Fatalf("the bash output did not reach the model: %s", second)
			}
		}},
		{"gemini", "gemini", "gemini-3-pro-preview", "gemini", func(t *testing.T, ws string, second []byte) {
			if !strings.Contains(string(second), "hello from the test") {
				t.Fatalf("the bash output did not reach the model: %s", second)
			}
			// The thought signature of the call goes back on the call, byte for byte.
			if !strings.Contains(string(second), `"id":"q7r2x0ke","args":{"command":"cat hello.py"},"name":"bash"},"thoughtSignature":"Eu0DCuoDAb4+9vvdbiOpT/hdj5Nf`) {
				t.Fatalf("the call went back without its signature: %s", second)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := providerData
			srv := providertest.NewReplayServer(filepath.Join(dir, c.fixture+"-1-tool.sse"), filepath.Join(dir, c.fixture+"-2-answer.sse"))
			defer srv.Close()
			home, ws := t.TempDir(), t.TempDir()
			os.WriteFile(filepath.Join(ws, "README.md"), []byte("# sample\n"), 0o644)
			os.WriteFile(filepath.Join(ws, "hello.py"), []byte("print('hello from the test')\n"), 0o644)
			env := []string{"KEY=test-key-1234567890"}
			exoEnv(t, home, ws, env, "secret", "set", "key", "--env", "KEY")
			if _, errs, code := exoEnv(t, home, ws, nil, "model", "register", "m", "--provider", c.provider,
				"--model-id", c.model, "--base-url", srv.URL, "--secret", "key"); code != 0 {
				t.Fatal(errs)
			}
			out, errs, code := exoEnv(t, home, ws, nil, "run", "--json", "do the thing")
			if code != 0 {
				t.Fatalf("exit %d: %s %s", code, out, errs)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests", len(reqs))
			}
			if !strings.Contains(out, `"steps": 2`) || !strings.Contains(out, `"tool_calls": 1`) {
				t.Fatalf("run summary: %s", out)
			}
			c.check(t, ws, reqs[1].Body)
		})
	}
}

// TestRunReportsBrokenStreams checks a malformed stream ends the turn with exit 1, a model.failed
// event saying what to do, and the prompt still in the log.
func TestRunReportsBrokenStreams(t *testing.T) {
	t.Parallel()
	for _, fixture := range []string{"chat-malformed", "anthropic-malformed", "openai-responses-malformed", "gemini-malformed"} {
		t.Run(fixture, func(t *testing.T) {
			srv := providertest.NewReplayServer(filepath.Join(providerData, fixture+".sse"))
			defer srv.Close()
			home, ws := t.TempDir(), t.TempDir()
			prov := map[string]string{"chat-malformed": "openai-compatible", "anthropic-malformed": "anthropic", "openai-responses-malformed": "openai", "gemini-malformed": "gemini"}[fixture]
			exoEnv(t, home, ws, nil, "model", "register", "m", "--provider", prov, "--model-id", "x", "--base-url", srv.URL)
			_, errs, code := exoEnv(t, home, ws, nil, "run", "hello")
			if code != 1 || !strings.Contains(errs, "malformed") {
				t.Fatalf("exit %d: %s", code, errs)
			}
			log, _, _ := exoEnv(t, home, ws, nil, "log", lastSession(t, home))
			if !strings.Contains(log, "invocation.received") || !strings.Contains(log, "model.failed") || !strings.Contains(log, "nothing was lost") {
				t.Fatalf("log:\n%s", log)
			}
		})
	}
}

// TestRunNamesGeminiSafetyBlock runs `exo run --provider gemini` against a stream the safety
// filters cut mid-answer: the turn fails naming the block and its category, and the text that
// came before the block is kept in the log.
func TestRunNamesGeminiSafetyBlock(t *testing.T) {
	t.Parallel()
	srv := providertest.NewReplayServer(filepath.Join(providerData, "gemini", "safety-mid-answer.reconstructed.sse"))
	defer srv.Close()
	home, ws := t.TempDir(), t.TempDir()
	exoEnv(t, home, ws, nil, "model", "register", "m", "--provider", "gemini", "--model-id", "gemini-2.5-flash", "--base-url", srv.URL)
	out, errs, code := exoEnv(t, home, ws, nil, "run", "how is it made")
	if code != 1 || !strings.Contains(errs, "SAFETY") || !strings.Contains(errs, "HARM_CATEGORY_DANGEROUS_CONTENT") || !strings.Contains(errs, "rephrase") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("a blocked answer was sent again: %d requests", n)
	}
	log, _, _ := exoEnv(t, home, ws, nil, "log", lastSession(t, home))
	if !strings.Contains(log, "model.failed") || !strings.Contains(log, "usually prepared") {
		t.Fatalf("log:\n%s", log)
	}
}
