package extexec

import (
	"sort"
	"strings"
)

// passVars are the variables an agent inherits from exo's environment: locale, terminal and
// search path. Everything else (API keys, tokens, EXO_*, cloud credentials, agent sockets,
// IS_SANDBOX) stays out; an adapter adds what its agent needs explicitly.
var passVars = map[string]bool{
	"PATH": true, "LANG": true, "LANGUAGE": true, "TERM": true, "COLORTERM": true, "TZ": true,
	"USER": true, "LOGNAME": true, "NO_COLOR": true,
}

// CleanEnv builds an agent's environment: the allow-listed variables of parent (LC_* included)
// and then set, which wins. The result is sorted, one NAME=value per entry.
func CleanEnv(parent []string, set map[string]string) []string {
	m := map[string]string{}
	for _, kv := range parent {
		k, v, ok := strings.Cut(kv, "=")
		if ok && (passVars[k] || strings.HasPrefix(k, "LC_")) {
			m[k] = v
		}
	}
	for k, v := range set {
		m[k] = v
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
