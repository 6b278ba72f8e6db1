package claude

import (
	"testing"

	"exo/harness"
	"exo/harness/extexec"
	"exo/harness/extexec/exectest"
)

// secrets are the sealed key and a sealed secret other than the model's key: the user pastes it,
// a workspace file holds it, the model repeats it.
var secrets = exectest.Secrets{Key: sealedKey, Pasted: "pasted-SECRET-value-4f3e2d1c0b9a"}

// TestSealedSecretsLeaveNoTrace: a sealed secret the user pastes into the prompt, a tool prints
// (through exo's bash) and the model repeats (streamed in 5-byte pieces), and the sealed key an
// upstream error quotes, reach neither the turn's result nor the model's request bodies nor any
// file of Claude's state folders nor its environment nor the log (exectest.SealedSecrets).
// (Before: the prompt went to Claude as typed, so Claude's transcript and every later request
// body held the secret; the model's repetition and the error body reached Claude's transcript as
// they came.)
func TestSealedSecretsLeaveNoTrace(t *testing.T) {
	sc := exectest.SecretScript("mcp__exo__bash", "invalid x-api-key ", secrets)
	ws := t.TempDir()
	exectest.WriteNotes(t, ws, secrets)
	f := scriptedFixture(t, t.TempDir(), ws, sc, harness.Options{})
	exectest.SealedSecrets(t, f.h, f.s.ID, f.srv, secrets, func() *extexec.Runner { return f.executor(t, Options{}).Runner })
}
