package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/extexec/conformance"
	"exo/harness/extexec/exectest"
	"exo/harness/provider"
)

// TestConformance runs the executor conformance suite against Codex: exo's tools as its dynamic
// tools (bash), its own exec_command for the home probes (native tools).
func TestConformance(t *testing.T) {
	conformance.Run(t, &conformance.Adapter{
		Name:            Name,
		Wire:            conformance.Responses,
		Bash:            "bash",
		Shell:           conformance.Tool{Name: "exec_command", Arg: "cmd"},
		ReasoningFormat: provider.ReasoningResponses,
		KillGroup:       true,
		External:        true,
		Find:            codexBinary,
		AfterProbes:     daemonFolderInOwnTmp,
		Open: func(t testing.TB, h *harness.Harness, bin string, o conformance.Options) conformance.Executor {
			x, err := New(h, Options{Binary: bin, NativeTools: o.Native, Exec: o.Exec})
			if err != nil {
				t.Fatal(err)
			}
			return conformance.FromRunner(x.Runner)
		},
	})
}

// daemonFolderInOwnTmp: Codex makes a codex-daemon-UID folder in /tmp whatever TMPDIR says; its
// /tmp is its own temp folder under EXO_HOME, so that is where the folder is. Where that folder
// has a quota it is a tmpfs of the agent's own mount namespace, which leaves nothing on disk: the
// folder must then be on none of the host's /tmp either.
func daemonFolderInOwnTmp(t *testing.T, f *conformance.Fixture, x conformance.Executor) {
	evs, err := f.H.Events(f.Sess.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	started := exectest.Payloads[harness.ExecutorStarted](t, evs, harness.TypeExecutorStarted)
	tmp := x.Runner.Session(f.Sess.ID).Dirs.Tmp
	if m, _ := filepath.Glob(filepath.Join(tmp, "codex-daemon-*")); len(m) > 0 {
		return
	}
	if !strings.Contains(started[0].Confinement, "tmp (tmpfs)") {
		t.Fatalf("no codex-daemon folder in codex's temp folder %s, which has no quota (%s)", tmp, started[0].Confinement)
	}
	host, _ := filepath.Glob("/tmp/codex-daemon-*")
	for _, d := range host {
		if fi, err := os.Stat(d); err == nil && fi.ModTime().After(f.Sess.Created) {
			t.Fatalf("codex made its folder %s in the host's /tmp", d)
		}
	}
}
