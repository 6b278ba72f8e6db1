package sandbox

import (
	"fmt"
	"os/exec"
)

// Command returns an unstarted command that runs prog with args under the same confinement as
// the sandbox's shell (namespaces, Landlock, rlimits, masked paths and the allow-listed
// environment plus cfg.Env), starting in cfg.Workspace, with the enforcement it runs under.
// It is for long-lived helper programs that speak over pipes, such as MCP servers; the caller
// wires Stdin, Stdout and Stderr. Under the Refuse policy it fails when isolation is missing.
func Command(cfg Config, caps Capabilities, prog string, args ...string) (*exec.Cmd, Enforcement, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, Enforcement{}, err
	}
	enf, err := plan(cfg, caps)
	if err != nil {
		return nil, enf, fmt.Errorf("confine %s: %w", prog, err)
	}
	cmd, err := helperCmd(cfg, enf, cfg.Workspace, prog, args...)
	if err != nil {
		return nil, enf, fmt.Errorf("confine %s: %w", prog, err)
	}
	return cmd, enf, nil
}

// Plan says what a command under cfg would run under on a host with caps, starting nothing
// (exo doctor's view of an agent's confinement). Under the Refuse policy it fails as Command does.
func Plan(cfg Config, caps Capabilities) (Enforcement, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return Enforcement{}, err
	}
	return plan(cfg, caps)
}

// Release frees what Command set up for cmd (its pids cgroup) once cmd has exited.
func Release(cmd *exec.Cmd) { removeCgroup(cmd) }
