package mcp

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"exo/harness/secrets"
)

// Resolver supplies the values of ${...} references in a server's configuration.
type Resolver struct {
	// LookupEnv reads exo's environment (os.LookupEnv).
	LookupEnv func(string) (string, bool)
	// Secret opens a sealed secret; an error matching secrets.ErrNotFound means there is none.
	Secret func(name string) ([]byte, error)
}

// refRE matches ${NAME}, ${NAME:-default} and ${secret:NAME}.
var refRE = regexp.MustCompile(`\$\{(secret:)?([A-Za-z_][A-Za-z0-9_.-]*)(:-([^}]*))?\}`)

// Expand replaces references in s:
//   - ${secret:NAME} is the sealed secret NAME (exo secret set NAME);
//   - ${NAME} is exo's environment variable NAME, else the sealed secret NAME;
//   - ${NAME:-default} falls back to default when neither exists.
//
// A reference that resolves to nothing is an error naming it (never its value).
func (r Resolver) Expand(s string) (string, error) {
	var firstErr error
	out := refRE.ReplaceAllStringFunc(s, func(ref string) string {
		m := refRE.FindStringSubmatch(ref)
		v, err := r.value(m[1] != "", m[2], m[3] != "", m[4])
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return v
	})
	return out, firstErr
}

// value resolves one reference.
func (r Resolver) value(sealedOnly bool, name string, hasDefault bool, def string) (string, error) {
	if !sealedOnly && r.LookupEnv != nil {
		if v, ok := r.LookupEnv(name); ok {
			return v, nil
		}
	}
	if r.Secret != nil {
		v, err := r.Secret(name)
		if err == nil {
			return string(v), nil
		}
		if !errors.Is(err, secrets.ErrNotFound) {
			return "", fmt.Errorf("${%s}: %w", name, err)
		}
	}
	if hasDefault {
		return def, nil
	}
	if sealedOnly {
		return "", fmt.Errorf("${secret:%s}: no sealed secret of that name (exo secret set %s --env VAR)", name, name)
	}
	return "", fmt.Errorf("${%s}: not set in the environment and no sealed secret of that name (exo secret set %s --env %s)", name, name, name)
}

// Expanded returns the configuration with every reference in command, args, env, url and
// headers replaced. The result holds secret values: it must never be recorded.
func (r Resolver) Expanded(c ServerConfig) (ServerConfig, error) {
	var errs []string
	ex := func(s string) string {
		v, err := r.Expand(s)
		if err != nil {
			errs = append(errs, err.Error())
		}
		return v
	}
	out := c
	out.Command = ex(c.Command)
	out.URL = ex(c.URL)
	out.Args = make([]string, len(c.Args))
	for i, a := range c.Args {
		out.Args[i] = ex(a)
	}
	out.Env = expandMap(c.Env, ex)
	out.Headers = expandMap(c.Headers, ex)
	if len(errs) > 0 {
		return out, errors.New(strings.Join(errs, "; "))
	}
	return out, nil
}

// expandMap expands every value of m.
func expandMap(m map[string]string, ex func(string) string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = ex(v)
	}
	return out
}
