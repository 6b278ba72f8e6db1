package codex

import (
	"os"
	"path/filepath"
	"testing"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/modeltest"
	"exo/sandbox"
)

// sealedKey is the provider key exo seals; it must reach the provider and nothing else.
const sealedKey = "sk-openai-exo-test-SEALED-abcdef0123"

// requireEnv, when set (CI sets it), turns a missing codex binary into a failure.
const requireEnv = "EXO_REQUIRE_CODEX"

// codexBinary finds the real codex or skips the test saying why.
func codexBinary(t testing.TB) string {
	t.Helper()
	bin, err := FindBinary()
	if err != nil {
		if os.Getenv(requireEnv) != "" {
			t.Fatalf("%s is set but: %v", requireEnv, err)
		}
		t.Skipf("the real Codex CLI is needed (.ci/run installs @openai/codex@%s): %v", PinnedVersion, err)
	}
	return bin
}

// fixture is a harness whose default model is an OpenAI model served by a scripted Responses
// server, and a session.
type fixture struct {
	h   *harness.Harness
	s   *harness.Session
	ws  string
	srv *modeltest.Responses
	bin string
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	sc, err := modeltest.LoadScript(filepath.Join("testdata", "turns.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return openFixture(t, t.TempDir(), sc, harness.Options{})
}

// openFixture is newFixture with EXO_HOME at home, the model server playing sc, and the harness
// opened with opts (its sandbox helper always the test binary).
func openFixture(t testing.TB, home string, sc *modeltest.Script, opts harness.Options) *fixture {
	t.Helper()
	bin := codexBinary(t)
	srv := modeltest.NewResponses(sc)
	t.Cleanup(srv.Close)
	opts.SandboxHelper = []string{os.Args[0], sandbox.HelperCommand}
	h, err := harness.Open(home, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if err := h.SetSecret("openai-key", []byte(sealedKey)); err != nil {
		t.Fatal(err)
	}
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "gpt", Provider: "openai", ModelID: "gpt-5.5", BaseURL: srv.BaseURL(), Secret: "openai-key", PriceIn: 1.25, PriceOut: 10}); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("# sample\n"), 0o644)
	s, err := h.NewSession(harness.NewSessionOptions{Name: "cx", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{h: h, s: s, ws: ws, srv: srv, bin: bin}
}

func (f *fixture) executor(t testing.TB, o Options) *Executor {
	t.Helper()
	o.Binary = f.bin
	if o.Exec.ApprovalTimeout == 0 {
		o.Exec.Headless = true
	}
	x, err := New(f.h, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

func (f *fixture) events(t testing.TB, id string) []harness.Event {
	t.Helper()
	evs, err := f.h.Events(id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func okResult(t testing.TB, res executor.Result, err error) {
	t.Helper()
	if err != nil || res.Failure != "" || res.Cancelled {
		t.Fatalf("turn: err %v, result %+v", err, res)
	}
}
