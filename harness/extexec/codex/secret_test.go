package codex

import (
	"testing"

	"exo/harness"
	"exo/harness/extexec"
	"exo/harness/extexec/exectest"
)

// secrets are the sealed key and a sealed secret other than the model's key.
var secrets = exectest.Secrets{Key: sealedKey, Pasted: "pasted-SECRET-value-7a6b5c4d3e2f"}

// TestSealedSecretsLeaveNoTrace: a sealed secret the user pastes, exo's bash prints and the model
// repeats in 5-byte deltas (Responses wire), and the sealed key an upstream error quotes, reach
// neither the turn's result nor a request body nor a file of Codex's state folders (its
// rollouts, SQLite state, logs) nor its environment nor the log (exectest.SealedSecrets).
func TestSealedSecretsLeaveNoTrace(t *testing.T) {
	sc := exectest.SecretScript("bash", "invalid key ", secrets)
	f := openFixture(t, t.TempDir(), sc, harness.Options{})
	exectest.WriteNotes(t, f.ws, secrets)
	exectest.SealedSecrets(t, f.h, f.s.ID, f.srv, secrets, func() *extexec.Runner { return f.executor(t, Options{}).Runner })
}
