package sandbox

import (
	"bytes"
	"strings"
)

// userRepo returns the runner for the user's repository whose work tree is dir: besides the
// hardened overrides of every git command, each command-valued setting that the repository's
// config (or a file it includes) names is disarmed, since the agent can write that config.
// Attributes (.gitattributes) only name drivers; a driver runs only if config defines it, so
// disarming the config's drivers covers the attributes too.
func userRepo(dir string) gitRunner {
	g := gitRunner{workTree: dir}
	if out, err := g.run(nil, "config", "--list", "--includes", "--name-only", "-z"); err == nil {
		g.neutral = neutralize(bytes.Split(out, []byte{0}))
	}
	return g
}

// neutralize returns -c overrides that disarm every command-valued key among keys.
func neutralize(keys [][]byte) []string {
	var out []string
	seen := map[string]bool{}
	add := func(kv string) {
		if !seen[kv] {
			seen[kv] = true
			out = append(out, kv)
		}
	}
	for _, k := range keys {
		key := string(bytes.TrimSpace(k))
		if kv, ok := neutralValue(key); ok {
			add(kv)
			if sec, sub, _ := splitKey(key); sec == "filter" {
				add("filter." + sub + ".required=false")
			}
		}
	}
	return out
}

// neutralValue returns the override that disarms key, if it names a command.
func neutralValue(key string) (string, bool) {
	sec, sub, name := splitKey(key)
	switch {
	case sec == "filter" && (name == "clean" || name == "smudge" || name == "process"),
		sec == "diff" && (name == "textconv" || name == "command"),
		sec == "merge" && name == "driver",
		sec == "credential" && name == "helper",
		sec == "gpg" && name == "program",
		sec == "remote" && (name == "uploadpack" || name == "receivepack" || name == "vcs" || name == "proxy"),
		sec == "core" && (name == "gitproxy" || name == "alternaterefscommand"),
		sec == "hook" && name == "command",
		(sec == "difftool" || sec == "mergetool" || sec == "browser" || sec == "man") && (name == "cmd" || name == "path"):
		return key + "=", true
	case sec == "pager" && sub == "":
		return key + "=false", true
	case sec == "submodule" && name == "update":
		return key + "=none", true
	}
	return "", false
}

// splitKey splits section.subsection.name (the subsection may contain dots); section and name
// are lower-cased as git compares them.
func splitKey(key string) (sec, sub, name string) {
	i, j := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
	if i < 0 {
		return strings.ToLower(key), "", ""
	}
	sec, name = strings.ToLower(key[:i]), strings.ToLower(key[j+1:])
	if j > i {
		sub = key[i+1 : j]
	}
	return sec, sub, name
}
