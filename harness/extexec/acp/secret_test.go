package acp

import (
	"testing"

	"exo/harness"
	"exo/harness/extexec"
	"exo/harness/extexec/exectest"
	"exo/harness/extexec/modeltest"
)

// secrets are the sealed key and a sealed secret other than the model's key.
var secrets = exectest.Secrets{Key: sealedKey, Pasted: "pasted-SECRET-value-9c8b7a6f5e4d"}

// TestSealedSecretsLeaveNoTrace: with claude-agent-acp, a sealed secret the user pastes, exo's
// bash prints and the model repeats in 5-byte deltas, and the sealed key an upstream error
// quotes, reach neither the turn's result nor a request body nor a file of the agent's state
// folders nor its environment nor the log (exectest.SealedSecrets).
func TestSealedSecretsLeaveNoTrace(t *testing.T) {
	bin := claudeACP(t)
	sc := exectest.SecretScript("mcp__exo__bash", "invalid x-api-key ", secrets,
		modeltest.Prompt{When: "Write the title", Turns: []modeltest.Turn{{Text: "Title"}}})
	f := openFixture(t, t.TempDir(), sc, harness.Options{})
	exectest.WriteNotes(t, f.ws, secrets)
	exectest.SealedSecrets(t, f.h, f.s.ID, f.srv, secrets, func() *extexec.Runner { return f.executor(t, Options{Command: []string{bin}}).Runner })
}
