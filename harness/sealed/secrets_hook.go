package sealed

import (
	"fmt"
	"strings"

	"exo/store"
)

// OpenSecret returns a sealed secret's value. Only the harness calls it, to authenticate a
// provider; the value never enters an event, artifact, prompt, log or the sandbox.
func (sc *Secrets) OpenSecret(name string) ([]byte, error) {
	if sc.vault == nil {
		return nil, fmt.Errorf("secret %s: the secret store is not open", name)
	}
	return sc.vault.Open(name)
}

// SecretPathDenied says why a tool may not read path ("" when it may): exo's home holds the
// sealed secrets, their key and the event log, and the runtime folder the daemon's socket.
func (sc *Secrets) SecretPathDenied(abs string) string {
	abs = resolved(abs)
	for i, dir := range sc.private {
		if dir = resolved(dir); within(abs, dir) {
			return deniedWhy(i, dir)
		}
	}
	return ""
}

// deniedWhy says why a path under the i-th of exo's private folders (dir) is refused.
func deniedWhy(i int, dir string) string {
	if i == 0 {
		return "paths under exo's home (" + dir + ") hold sealed secrets and are not readable by tools"
	}
	return "paths under exo's runtime folder (" + dir + ") hold the daemon's socket and are not readable by tools"
}

// SecretCommandDenied returns the secret a command tries to reach, or "": a command naming a
// sealed secret or the environment variable it came from as a variable, or exo's home.
//
// It is plain text matching and only an early notice (a secret.denied the user sees before
// anything runs): a command can spell a path or a variable in ways it does not match. Nothing
// relies on it for safety: the sandbox's environment is an allow-list (no secret is in it) and
// exo's home is covered inside the sandbox by an empty read-only mount, wherever it is
// (TestHomeUnreachable runs spellings this check misses).
func (sc *Secrets) SecretCommandDenied(command string) (name, reason string) {
	if strings.Contains(command, sc.home) {
		return "exo-home", "the command reaches into exo's home, which holds sealed secrets"
	}
	for _, n := range sc.secretNames() {
		for _, v := range envNamesFor(n) {
			if mentionsVar(command, v) {
				return n, "raw secret values never enter the sandbox, the context or the screen"
			}
		}
	}
	return "", ""
}

// secretNames lists the sealed secrets' names.
func (sc *Secrets) secretNames() []string {
	var out []string
	_ = sc.st.View(func(tx *store.Tx) error {
		return tx.Records(store.Secrets, func(k string, _ []byte) error {
			if !strings.HasPrefix(k, "\x00") {
				out = append(out, k)
			}
			return nil
		})
	})
	return out
}

// envNamesFor lists variable names under which a secret may be sought.
func envNamesFor(name string) []string {
	up := strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(name))
	out := []string{name, up}
	switch {
	case strings.Contains(up, "OPENAI"):
		out = append(out, "OPENAI_API_KEY")
	case strings.Contains(up, "ANTHROPIC"):
		out = append(out, "ANTHROPIC_API_KEY")
	}
	return out
}

// mentionsVar reports whether command refers to variable v ($V, ${V}, printenv V, environ).
func mentionsVar(command, v string) bool {
	if v == "" {
		return false
	}
	for _, form := range []string{"$" + v, "${" + v, "printenv " + v, "getenv(\"" + v, "environ[\"" + v, "ENV[\"" + v} {
		if strings.Contains(command, form) {
			return true
		}
	}
	return false
}
