package extexec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
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
// reserve large address ranges); the CPU weight of the agent run directly (agentCPUWeight).
// Network stays on: the agent must reach the session's endpoint on loopback, which takes the
// per-session token. `isolation: strict` refuses to start without all of it.
func AgentSandbox(h *harness.Harness, s *harness.Session, d Dirs, c Confinement) *sandbox.Config {
	cfg := &sandbox.Config{Workspace: s.Workspace, TmpDir: d.Tmp, Network: true, Fallback: sandbox.RunUnconfined,
		Hide: []string{h.Home()}, ExtraWritable: []string{d.Root}, Helper: h.SandboxHelper(),
		Limits: sandbox.Limits{AddressSpace: sandbox.Unlimited, CPUSeconds: sandbox.Unlimited, CPUWeight: agentCPUWeight()}}
	if c.Nested && h.Capabilities().MountNS {
		cfg.Filesystem, cfg.NestedUserNS = sandbox.FSMountNS, true
	}
	if s.Settings["isolation"] == "strict" {
		cfg.Fallback = sandbox.Refuse
	}
	return cfg
}

// agentCPUWeight is the CPU weight of an agent's sandbox (on cgroup v2's scale, 100 an ordinary
// process): an ordinary process's per core, at most 10000. The sandbox's cgroup weighs the agent's
// whole process tree as one, where run directly each of its threads (a Node.js agent's main
// thread, its garbage collector's and I/O threads, on up to every core) weighs as an ordinary
// process. At the PTY sandbox's weight of 50 the agent's main thread, on which every step of a
// turn waits, queued for the CPU on a loaded machine: BenchmarkGeminiTurn (harness/extexec/acp)
// measured the Gemini CLI's two-step turn at 356 ms under exo against 127 ms run directly at
// load average 15 on 2 cores, the CLI's CPU time alike (71 and 66 ms) but its time runnable
// waiting for a CPU 376 ms against 102 ms; at this weight, 117 ms. Commands exo runs in its own
// sandboxes keep their weight.
func agentCPUWeight() uint64 { return uint64(min(100*runtime.NumCPU(), 10000)) }

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
