package harness

import (
	"fmt"

	"exo/harness/config"
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
