package runtimes

import (
	"fmt"
	"os"
	"path/filepath"

	"exo/harness/config"
	"exo/harness/rundir"
	"exo/sandbox"
)

// SandboxLimits reads the [sandbox] caps of the user's configuration file configFile ("" reads
// none): each one set replaces the default, and the others ("auto") are left zero for the
// sandbox to fit to the machine at run time. A project's file never sets them.
func SandboxLimits(configFile string) (sandbox.Limits, error) {
	var l sandbox.Limits
	if configFile == "" {
		return l, nil
	}
	cfg, err := config.Load(config.Options{UserFile: configFile})
	if err != nil {
		return l, fmt.Errorf("read the sandbox's caps from the configuration: %w", err)
	}
	for key, dst := range map[string]*uint64{config.KeySandboxProcesses: &l.Processes, config.KeySandboxMemory: &l.Memory,
		config.KeySandboxCPUWeight: &l.CPUWeight, config.KeySandboxTmpSize: &l.TmpSize} {
		if *dst, err = config.ParseSize(cfg.Get(key)); err != nil {
			return l, fmt.Errorf("configuration %s: %w", key, err)
		}
	}
	return l, nil
}

// DefaultEnforcement says what a session with default settings runs under on this machine,
// with the caps of the user's configuration file (exo doctor shows it).
func DefaultEnforcement(caps sandbox.Capabilities) sandbox.Enforcement {
	dir, err := os.MkdirTemp("", "exo-probe-")
	if err != nil {
		return sandbox.Enforcement{Unenforced: []string{"could not probe: " + err.Error()}}
	}
	defer os.RemoveAll(dir)
	cfg := sandbox.Config{Workspace: dir, TmpDir: filepath.Join(dir, "tmp"), Fallback: sandbox.RunUnconfined, Helper: []string{"true"}}
	limits, err := SandboxLimits(config.UserFile())
	if err != nil {
		return sandbox.Enforcement{Unenforced: []string{err.Error()}}
	}
	if home, err := rundir.HomeDir(); err == nil {
		cfg.Hide = []string{home}
		if limits.TmpSize == 0 { // fitted to the disk of exo's home, where sessions' tmp dirs are
			limits.TmpSize = sandbox.MachineLimits(filepath.Join(home, "tmp")).TmpSize
		}
	}
	cfg.Limits = limits
	sh, err := sandbox.NewShell(cfg, caps)
	if err != nil {
		return sandbox.Enforcement{Unenforced: []string{err.Error()}}
	}
	defer sh.Close()
	return sh.Enforcement()
}
