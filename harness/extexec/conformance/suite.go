package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"exo/harness"
	"exo/harness/extexec/attacktest"
	"exo/harness/extexec/modeltest"
	"exo/sandbox"
)

// Behaviour is one behaviour of the suite.
type Behaviour struct {
	// Name names the subtest and the row of README's matrix.
	Name string
	// Run checks the behaviour against the adapter of s.
	Run func(t *testing.T, s *Suite)
}

// Behaviours are the suite's behaviours, in the order of README's matrix.
var Behaviours = []Behaviour{
	{"answer", Answer},
	{"tool", ToolThroughExo},
	{"approval", Approval},
	{"cancel", Cancel},
	{"kill-at-approval", KillAtApproval},
	{"kill-in-tool", KillInTool},
	{"kill-mid-stream", KillMidStream},
	{"secrets", SealedSecrets},
	{"secret-in-reasoning", SecretInReasoning},
	{"reasoning", Reasoning},
	{"usage-and-cost", UsageAndCost},
	{"budget", Budget},
	{"fork-and-rewind", ForkAndRewind},
	{"spans", Spans},
	{"home-probes", HomeProbes},
}

// Suite is one adapter under test: its description, its program, the one model server all its
// behaviours share, and the sealed key that server expects.
type Suite struct {
	A       *Adapter
	Program string
	Key     string
	srv     server
	// home is the EXO_HOME the probes attack (the script's probes name it, not literally).
	home   string
	probes []attacktest.Probe
}

// Run runs every behaviour against a as parallel subtests, each behaviour on its own harness and
// session, all against one scripted model server. A behaviour a names as not applicable is
// skipped with the reason, one a names as failing with the defect found.
func Run(t *testing.T, a *Adapter) {
	s := Start(t, a)
	for _, b := range Behaviours {
		t.Run(b.Name, func(t *testing.T) {
			if why, ok := a.NotApplicable[b.Name]; ok {
				t.Skipf("not applicable to %s: %s", a.Name, why)
			}
			if what, ok := a.Failing[b.Name]; ok {
				t.Skipf("KNOWN DEFECT, open: %s fails %s: %s", a.Name, b.Name, what)
			}
			t.Parallel()
			b.Run(t, s)
		})
	}
}

// Start finds a's program (or skips), makes the home the probes attack and starts the model
// server, for Run or for a test of one behaviour.
func Start(t *testing.T, a *Adapter) *Suite {
	t.Helper()
	spans() // installed before any behaviour runs: the tracer provider is process-wide
	s := &Suite{A: a, Key: keys[a.Wire]}
	if a.Find != nil {
		s.Program = a.Find(t)
	}
	s.home = attacktest.Home(t)
	s.probes = attacktest.Probes(s.home)
	s.srv = newServer(a.Wire, script(a, s.Key, s.probes))
	t.Cleanup(s.srv.Close)
	return s
}

// keys are the sealed model keys, by wire; each must reach the model server in its
// authentication header and nowhere else.
var keys = map[Wire]string{
	Anthropic: "sk-ant-exo-conformance-SEALED-0123456789abcdef",
	Responses: "sk-openai-exo-conformance-SEALED-abcdef0123",
	Gemini:    "AIzaSyEXO-conformance-SEALED-424242424242",
}

// keyName is the sealed key's name in exo.
const keyName = "model-key"

// server is a scripted model server of one wire.
type server interface {
	// base is the API base a model spec points at.
	base() string
	// Requests are what it received.
	Requests() []modeltest.Seen
	// Hanging is signalled when a hang turn holds a request open.
	Hanging() <-chan struct{}
	// key is the API key a request presented.
	key(modeltest.Seen) string
	Close()
}

type anthropicServer struct{ *modeltest.Anthropic }

func (s anthropicServer) base() string                { return s.URL }
func (s anthropicServer) key(q modeltest.Seen) string { return q.Header.Get("X-Api-Key") }

type responsesServer struct{ *modeltest.Responses }

func (s responsesServer) base() string { return s.BaseURL() }
func (s responsesServer) key(q modeltest.Seen) string {
	return trimBearer(q.Header.Get("Authorization"))
}

type geminiServer struct{ *modeltest.Gemini }

func (s geminiServer) base() string { return s.URL }
func (s geminiServer) key(q modeltest.Seen) string {
	if k := q.Header.Get("X-Goog-Api-Key"); k != "" {
		return k
	}
	return q.Query.Get("key")
}

func trimBearer(h string) string {
	const p = "Bearer "
	if len(h) > len(p) && h[:len(p)] == p {
		return h[len(p):]
	}
	return ""
}

// newServer starts the scripted server of wire w playing sc.
func newServer(w Wire, sc *modeltest.Script) server {
	switch w {
	case Anthropic:
		return anthropicServer{modeltest.NewAnthropic(sc)}
	case Responses:
		return responsesServer{modeltest.NewResponses(sc)}
	case Gemini:
		return geminiServer{modeltest.NewGemini(sc)}
	}
	panic(fmt.Sprintf("conformance: no server for wire %q", w))
}

// models are the model specs by wire (prices set so cost is never 0).
var models = map[Wire]harness.ModelSpec{
	Anthropic: {Name: "sonnet", Provider: "anthropic", ModelID: "claude-sonnet-4-5", PriceIn: 3, PriceOut: 15},
	Responses: {Name: "gpt", Provider: "openai", ModelID: "gpt-5.5", PriceIn: 1.25, PriceOut: 10},
	Gemini:    {Name: "gem", Provider: "gemini", ModelID: "gemini-2.5-flash", PriceIn: 0.3, PriceOut: 2.5},
}

// Fixture is one behaviour's harness (EXO_HOME of its own), its model (the suite's server, the
// key sealed) and a session on a workspace of its own.
type Fixture struct {
	S    *Suite
	H    *harness.Harness
	Sess *harness.Session
	WS   string
	Home string
}

// Fixture opens a harness at home ("" makes one) with opts (its sandbox helper always the test
// binary, whose TestMain must serve sandbox.HelperCommand).
func (s *Suite) Fixture(t *testing.T, home string, opts harness.Options) *Fixture {
	t.Helper()
	if home == "" {
		home = t.TempDir()
	}
	opts.SandboxHelper = []string{os.Args[0], sandbox.HelperCommand}
	h, err := harness.Open(home, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if err := h.SetSecret(keyName, []byte(s.Key)); err != nil {
		t.Fatal(err)
	}
	spec := models[s.A.Wire]
	spec.BaseURL, spec.Secret = s.srv.base(), keyName
	if _, err := h.RegisterModel(spec); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("# sample\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sess, err := h.NewSession(harness.NewSessionOptions{Name: "conf", Workspace: ws, Model: spec.Name})
	if err != nil {
		t.Fatal(err)
	}
	return &Fixture{S: s, H: h, Sess: sess, WS: ws, Home: home}
}

// Open opens the adapter's executor on f with o (headless unless o waits for approvals), closed
// when the test ends.
func (f *Fixture) Open(t testing.TB, o Options) Executor {
	t.Helper()
	if o.Exec.ApprovalTimeout == 0 {
		o.Exec.Headless = true
	}
	x := f.S.A.Open(t, f.H, f.S.Program, o)
	t.Cleanup(x.Close)
	return x
}
