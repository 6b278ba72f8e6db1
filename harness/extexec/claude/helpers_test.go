package claude

import (
	"bytes"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/modeltest"
	"exo/sandbox"
)

// sealedKey is the provider key exo seals; it must reach the provider and nothing else.
const sealedKey = "sk-ant-exo-test-SEALED-0123456789abcdef"

// requireEnv, when set (CI sets it), turns a missing claude binary into a failure.
const requireEnv = "EXO_REQUIRE_CLAUDE"

// claudeBinary finds the real claude or skips the test saying why.
func claudeBinary(t testing.TB) string {
	t.Helper()
	bin, err := FindBinary()
	if err != nil {
		if os.Getenv(requireEnv) != "" {
			t.Fatalf("%s is set but: %v", requireEnv, err)
		}
		t.Skipf("the real Claude Code CLI is needed (.ci/run installs @anthropic-ai/claude-code@%s): %v", PinnedVersion, err)
	}
	return bin
}

// fixture is a harness with an Anthropic model served by a scripted local server, and a session.
type fixture struct {
	h   *harness.Harness
	s   *harness.Session
	ws  string
	srv *modeltest.Anthropic
	bin string
}

// newFixture opens a harness whose default model is the scripted Anthropic server, its key sealed.
func newFixture(t testing.TB) *fixture {
	t.Helper()
	return newFixtureAt(t, t.TempDir())
}

// newFixtureAt is newFixture with EXO_HOME at home.
func newFixtureAt(t testing.TB, home string) *fixture {
	t.Helper()
	return openFixture(t, home, false)
}

// openFixture is newFixtureAt, with commits not synced to disk when noSync (benchmarks only).
func openFixture(t testing.TB, home string, noSync bool) *fixture {
	t.Helper()
	sc, err := modeltest.LoadScript(filepath.Join("testdata", "turns.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return scriptedFixture(t, home, "", sc, harness.Options{NoSync: noSync})
}

// scriptedFixture opens the fixture with EXO_HOME at home, the session's workspace at ws (""
// makes one), the model server playing sc, and the harness opened with opts (its sandbox helper
// always the test binary).
func scriptedFixture(t testing.TB, home, ws string, sc *modeltest.Script, opts harness.Options) *fixture {
	t.Helper()
	bin := claudeBinary(t)
	srv := modeltest.NewAnthropic(sc)
	t.Cleanup(srv.Close)
	opts.SandboxHelper = []string{os.Args[0], sandbox.HelperCommand}
	h, err := harness.Open(home, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if err := h.SetSecret("anthropic-key", []byte(sealedKey)); err != nil {
		t.Fatal(err)
	}
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "sonnet", Provider: "anthropic", ModelID: "claude-sonnet-4-5",
		BaseURL: srv.URL, Secret: "anthropic-key"}); err != nil {
		t.Fatal(err)
	}
	if ws == "" {
		ws = t.TempDir()
	}
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("# sample\n"), 0o644)
	s, err := h.NewSession(harness.NewSessionOptions{Name: "cc", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{h: h, s: s, ws: ws, srv: srv, bin: bin}
}

// executor opens the Claude Code executor on the fixture.
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

// events returns the session's events on its current branch.
func (f *fixture) events(t testing.TB, id string) []harness.Event {
	t.Helper()
	evs, err := f.h.Events(id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// noKeyIn fails if the sealed key is anywhere under dir.
func noKeyIn(t testing.TB, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(sealedKey)) {
			t.Errorf("the sealed key is in %s", p)
		}
		return nil
	})
}

// okResult fails unless a turn ended normally.
func okResult(t testing.TB, res executor.Result, err error) {
	t.Helper()
	if err != nil || res.Failure != "" || res.Cancelled {
		t.Fatalf("turn: err %v, result %+v", err, res)
	}
}

var httpClient = &http.Client{}

// newRequest builds a Messages call presenting token.
func newRequest(url, token string) (*http.Request, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"model":"x","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`))
	if err == nil && token != "" {
		req.Header.Set("X-Api-Key", token)
	}
	return req, err
}

// pid is the process id of a session's claude (0 when none runs).
func pid(x *Executor, sessionID string) int {
	ss := x.Session(sessionID)
	if ss == nil || ss.Proc == nil {
		return 0
	}
	return ss.Proc.(*proc).Pid()
}
