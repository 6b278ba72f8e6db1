package extexec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"exo/harness"
	"exo/sandbox"
)

// ErrUnconfined means an agent that runs commands or edits files itself would run without the
// confinement it needs on this machine, and the user did not allow that.
var ErrUnconfined = errors.New("the agent cannot be confined on this machine")

// Confinement says how an agent process is confined.
type Confinement struct {
	// ActsItself is set when the agent runs commands or edits files itself (native tools, ACP
	// agents): then missing confinement refuses the agent unless AllowUnconfined.
	ActsItself bool
	// AllowUnconfined is the user's explicit consent to run such an agent anyway, with whatever
	// confinement the machine enforces (the rest is recorded and shown).
	AllowUnconfined bool
	// Nested is set for agents that sandbox their own commands in user namespaces of their own
	// (Codex's bubblewrap): write confinement then uses a read-only mount namespace (Landlock
	// forbids mounts) and root is seen as an ordinary user inside (sandbox.Config.NestedUserNS).
	Nested bool
}

// AgentSandbox is the sandbox an agent process runs under for a session, the same as the PTY
// sandbox's but for what an agent needs: exo's home hidden (an empty read-only tmpfs) except the
// agent's own state folder; writes only to the workspace, that folder and the agent's temp
// folder (which is also its /tmp); no set-id files; unix sockets outside hidden; a process cap;
// no limit on CPU time or address space (the process lives as long as the session and runtimes
// reserve large address ranges). Network stays on: the agent must reach the session's endpoint
// on loopback, which takes the per-session token. `isolation: strict` refuses to start without
// all of it.
func AgentSandbox(h *harness.Harness, s *harness.Session, d Dirs, c Confinement) *sandbox.Config {
	cfg := &sandbox.Config{Workspace: s.Workspace, TmpDir: d.Tmp, Network: true, Fallback: sandbox.RunUnconfined,
		Hide: []string{h.Home()}, ExtraWritable: []string{d.Root}, Helper: h.SandboxHelper(),
		Limits: sandbox.Limits{AddressSpace: sandbox.Unlimited, CPUSeconds: sandbox.Unlimited}}
	if c.Nested && h.Capabilities().MountNS {
		cfg.Filesystem, cfg.NestedUserNS = sandbox.FSMountNS, true
	}
	if s.Settings["isolation"] == "strict" {
		cfg.Fallback = sandbox.Refuse
	}
	return cfg
}

// checkConfinement refuses an agent that acts itself when enf leaves something unenforced and
// the user did not allow it, and an agent program the sandbox would not see.
func checkConfinement(spec Spec, enf sandbox.Enforcement) error {
	if !enf.Confined() && spec.Confinement.ActsItself && !spec.Confinement.AllowUnconfined {
		return fmt.Errorf("%w: %s is not enforced here, and %s runs commands and edits files itself; use exo's tools instead of native ones, or allow it with --allow-unconfined",
			ErrUnconfined, strings.Join(enf.Unenforced, "; "), filepath.Base(spec.Path))
	}
	if enf.PrivateTmp {
		tmp := filepath.Clean(os.TempDir())
		if real, err := filepath.EvalSymlinks(spec.Path); err == nil && strings.HasPrefix(real, tmp+"/") {
			return fmt.Errorf("agent program %s lies under %s, which the agent's sandbox replaces with its own temp folder: install it elsewhere", spec.Path, tmp)
		}
	}
	return nil
}

// AgentEnforcement says what an agent process gets on this machine (for exo doctor), planned
// for a scratch workspace without starting anything.
func AgentEnforcement(h *harness.Harness, c Confinement) sandbox.Enforcement {
	dir, err := os.MkdirTemp("", "exo-agent-probe-")
	if err != nil {
		return sandbox.Enforcement{Unenforced: []string{"could not probe: " + err.Error()}}
	}
	defer os.RemoveAll(dir)
	d := Dirs{Root: dir, Tmp: filepath.Join(dir, "tmp")}
	cfg := AgentSandbox(h, &harness.Session{Workspace: dir}, d, c)
	cfg.Fallback = sandbox.RunUnconfined
	enf, err := sandbox.Plan(*cfg, h.Capabilities())
	if err != nil {
		return sandbox.Enforcement{Unenforced: []string{err.Error()}}
	}
	return enf
}
