package sandbox

import (
	"sort"
	"strings"
)

// allowedEnv lists the variables copied from exo's environment into sandboxed commands.
var allowedEnv = []string{"PATH", "HOME", "LANG", "USER", "LOGNAME", "SHELL", "TZ"}

// cleanEnv builds the environment of sandboxed commands from an allow-list of the
// parent's environment plus the given extras; nothing else is inherited.
func cleanEnv(parent []string, tmp string, extra map[string]string) []string {
	vals := map[string]string{}
	for _, kv := range parent {
		k, v, ok := strings.Cut(kv, "=")
		if ok && allowed(k) {
			vals[k] = v
		}
	}
	if vals["PATH"] == "" {
		vals["PATH"] = "/usr/local/bin:/usr/bin:/bin"
	}
	vals["TERM"] = "xterm-256color"
	vals["TMPDIR"] = tmp
	for k, v := range extra {
		vals[k] = v
	}
	out := make([]string, 0, len(vals))
	for k, v := range vals {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// allowed reports whether a parent variable may pass into the sandbox.
func allowed(k string) bool {
	if strings.HasPrefix(k, "LC_") {
		return true
	}
	for _, a := range allowedEnv {
		if k == a {
			return true
		}
	}
	return false
}
