package acp

import (
	"fmt"
	"path/filepath"

	"exo/harness/extexec"
)

// GeminiCLIVersion is the Gemini CLI release exo is tested with (npm @google/gemini-cli; run as
// acp:gemini --acp).
const GeminiCLIVersion = "0.61.0"

// geminiSettingsJSON is the Gemini CLI's user settings in the agent's own HOME: API-key
// authentication (the key being exo's session token), and no usage statistics, telemetry,
// update checks or folder-trust prompt, which would reach Google or wait for a person.
const geminiSettingsJSON = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
  "ui": {"hideTips": true}
}
`

// geminiSettings writes the Gemini CLI's settings (HOME/.gemini/settings.json) for agents that
// run it; other agents never read it.
func geminiSettings(ss *extexec.Session) error {
	rel := filepath.Join(filepath.Base(ss.Dirs.Home), ".gemini", "settings.json")
	if err := ss.Dirs.WriteFile(rel, []byte(geminiSettingsJSON)); err != nil {
		return fmt.Errorf("acp: gemini settings: %w", err)
	}
	return nil
}

// withACPFlag adds --acp to the Gemini CLI's command line when it has neither --acp nor
// --experimental-acp (without one the CLI starts its interactive screen), so that acp:gemini
// runs it as an agent.
func withACPFlag(cmd []string) []string {
	if filepath.Base(cmd[0]) != "gemini" {
		return cmd
	}
	for _, a := range cmd[1:] {
		if a == "--acp" || a == "--experimental-acp" {
			return cmd
		}
	}
	return append(append([]string(nil), cmd...), "--acp")
}
