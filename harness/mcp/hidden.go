package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"exo/sandbox"
)

// hiddenPath is a file a sandboxed server's command line names that the sandbox hides from it.
type hiddenPath struct {
	path string // the path as the command line names it
	root string // the hidden folder it is under: /tmp, /run, a folder of EXO_HOME…
}

// hiddenPaths lists the absolute paths in a confined server's command and arguments (an
// argument's value after "=" included) that exist here but that the sandbox hides from the
// server: /tmp when it gets a private one, and the masked folders. A path under one of the
// server's writable folders shows through.
func hiddenPaths(c ServerConfig, cfg sandbox.Config, enf sandbox.Enforcement) []hiddenPath {
	var roots []string
	if enf.PrivateTmp {
		roots = append(roots, "/tmp")
	}
	if enf.Filesystem == sandbox.FSMountNS || enf.PrivateTmp {
		roots = append(roots, cfg.MaskPaths...)
	}
	if len(roots) == 0 {
		return nil
	}
	var out []hiddenPath
	for _, w := range append([]string{c.Command}, c.Args...) {
		if _, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(v, "/") {
			w = v
		}
		if !filepath.IsAbs(w) {
			continue
		}
		p := filepath.Clean(w)
		root := underWhich(p, roots)
		if root == "" || underWhich(p, cfg.ExtraWritable) != "" {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			continue
		}
		out = append(out, hiddenPath{path: w, root: root})
	}
	return out
}

// underWhich returns the first of roots that p is or is under, or "".
func underWhich(p string, roots []string) string {
	for _, r := range roots {
		r = filepath.Clean(r)
		if p == r || strings.HasPrefix(p, strings.TrimSuffix(r, "/")+"/") {
			return r
		}
	}
	return ""
}

// hiddenHint explains a confined server's start failure by the paths the sandbox hides from
// it, and says how to let it reach them; "" when its command line names none.
func hiddenHint(hidden []hiddenPath, source string) string {
	if len(hidden) == 0 {
		return ""
	}
	h := hidden[0]
	what := "hides " + h.root
	if h.root == "/tmp" {
		what = "gives the server a private /tmp"
	}
	where := "its config"
	if source != "" {
		where = source
	}
	return fmt.Sprintf("; the sandbox %s, so the server cannot reach %s: move it into the workspace, "+
		"add %q to the server's \"writable\" list in %s (it may then write there too), or set \"sandbox\": \"off\" for it",
		what, h.path, filepath.Dir(filepath.Clean(h.path)), where)
}
