package local

import (
	"context"
	"path/filepath"

	"exo/harness/api"
	"exo/harness/config"
	"exo/harness/trust"
)

// loadConfig reads the user's and dir's configuration; the project file's trust is asked of c
// only when there is one.
func loadConfig(ctx context.Context, c api.Client, dir string) (*api.Config, error) {
	return config.Load(config.Options{UserFile: config.UserFile(), Project: dir, UserInstructions: config.UserInstructionsFile(),
		Trusted: func(project string, data []byte) bool { return projectConfigTrusted(ctx, c, project, data) }})
}

// projectConfigTrusted asks the harness whether the user trusted these exact contents of the
// project's .exo/config.toml.
func projectConfigTrusted(ctx context.Context, c api.Client, project string, data []byte) bool {
	rep, err := c.ProjectTrust(ctx, project)
	if err != nil {
		return false
	}
	want := filepath.ToSlash(config.ProjectFile)
	for _, f := range rep.Files {
		if f.Path == want {
			return f.State == "trusted" && f.Hash == trust.Hash(data)
		}
	}
	return false
}
