package acp

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/modeltest"
	"exo/sandbox"
)

// sealedKey is the provider key exo seals; it must reach the provider and nothing else.
const sealedKey = "sk-ant-acp-test-SEALED-4242424242"

// fixture is a harness with an Anthropic model served by a scripted server, and a session.
type fixture struct {
	h   *harness.Harness
	s   *harness.Session
	ws  string
	srv *modeltest.Anthropic
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
	srv := modeltest.NewAnthropic(sc)
	t.Cleanup(srv.Close)
	opts.SandboxHelper = []string{os.Args[0], sandbox.HelperCommand}
	h, err := harness.Open(home, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	h.SetSecret("anthropic-key", []byte(sealedKey))
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "sonnet", Provider: "anthropic", ModelID: "claude-sonnet-4-5", BaseURL: srv.URL, Secret: "anthropic-key"}); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("# sample\n"), 0o644)
	s, err := h.NewSession(harness.NewSessionOptions{Name: "acp", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{h: h, s: s, ws: ws, srv: srv}
}

func (f *fixture) executor(t testing.TB, o Options) *Executor {
	t.Helper()
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

// tinyAgent builds the test's own ACP agent, outside /tmp (which the agent's sandbox replaces).
func tinyAgent(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "exo-tinyagent-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "tinyagent")
	out, err := exec.Command("go", "build", "-o", bin, "./testdata/tinyagent").CombinedOutput()
	if err != nil {
		t.Fatalf("build tinyagent: %v\n%s", err, out)
	}
	return bin
}

// claudeACP finds claude-agent-acp or skips the test saying why (fails when EXO_REQUIRE_ACP is
// set, as in CI).
func claudeACP(t testing.TB) string {
	t.Helper()
	bin, err := FindCommand("claude-agent-acp")
	if err != nil {
		if os.Getenv("EXO_REQUIRE_ACP") != "" {
			t.Fatalf("EXO_REQUIRE_ACP is set but: %v", err)
		}
		t.Skipf("claude-agent-acp is needed (.ci/run installs @agentclientprotocol/claude-agent-acp@%s): %v", ClaudeACPVersion, err)
	}
	return bin
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
