package local

import (
	"exo/app/cli"
	"exo/harness"
	"exo/harness/config"
)

// Hooks returns the command line's local work, for cli.Options.
func Hooks() cli.Local {
	return cli.Local{
		UserConfigFile:    config.UserFile,
		LoadConfig:        loadConfig,
		ShowStoreEnv:      config.WithStoreEnv,
		Diagnose:          diagnose,
		RunDetached:       harness.RunDetached,
		InsideWarning:     harness.InsideWarning,
		CompileGovernance: compileGovernance,
		InitGovernance:    initGovernance,
		MCPAdd:            mcpAdd,
		MCPRemove:         mcpRemove,
		MCPFiles:          mcpFiles,
		MCPServe:          mcpServe,
		ProviderKinds:     providerKinds,
		OllamaModels:      ollamaModels,
	}
}

// diagnose describes EXO_HOME's database without opening it.
func diagnose(home string) cli.Damage {
	d := harness.Diagnose(home)
	return cli.Damage{Path: d.Path, Size: d.Size, Problem: d.Problem, Verdict: d.Verdict}
}
