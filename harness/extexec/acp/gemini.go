package acp

import (
	"fmt"
	"path/filepath"

	sdk "github.com/coder/acp-go-sdk"

	"exo/harness/extexec"
)

// GeminiCLIVersion is the Gemini CLI release exo is tested with (npm @google/gemini-cli; run as
// acp:gemini --acp).
const GeminiCLIVersion = "0.61.0"

// geminiSettingsJSON is the Gemini CLI's user settings in the agent's own HOME: API-key
// authentication (the key being exo's session token), no usage statistics, telemetry,
// update checks or folder-trust prompt, which would reach Google or wait for a person, and its
// shell tool on plain pipes (its pseudo-terminal cannot be had in exo's confinement, and no
// person types into it).
const geminiSettingsJSON = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
  "tools": {"shell": {"enableInteractiveShell": false}},
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
	if !isGeminiCLI(cmd) {
		return cmd
	}
	for _, a := range cmd[1:] {
		if a == "--acp" || a == "--experimental-acp" {
			return cmd
		}
	}
	return append(append([]string(nil), cmd...), "--acp")
}

// reasoningFromEndpoint reports whether the agent's reasoning is shown as exo's endpoint decodes
// it from the model's answers rather than from the agent's thought updates: the Gemini CLI's
// are not the model's thoughts as sent (it hands each piece of a thought on as a thought of its
// own, "****\n" before it where the model gave no **title**, the piece trimmed), and its model
// traffic always passes exo's endpoint.
func (a *agent) reasoningFromEndpoint() bool { return isGeminiCLI(a.opts.Command) }

// isGeminiCLI reports whether an agent's command line runs the Gemini CLI.
func isGeminiCLI(cmd []string) bool { return len(cmd) > 0 && filepath.Base(cmd[0]) == "gemini" }

// fsCapabilities are the file requests exo serves the agent (fs/read_text_file and
// fs/write_text_file), none for the Gemini CLI: its write_file reads the file first and takes
// only an ENOENT for "no such file", which an ACP client's error never is (the CLI gets the
// JSON-RPC error object, not an Error), so through exo it could write no new file. It reads and
// writes itself, inside exo's confinement (writes confined to the workspace), each write put
// to exo's approvals and scope first and the workspace snapshotted after it.
func (a *agent) fsCapabilities() sdk.FileSystemCapabilities {
	if isGeminiCLI(a.opts.Command) {
		return sdk.FileSystemCapabilities{}
	}
	return sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}
}
