package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"exo/harness/executor"
)

// pathKeys are the argument names that hold file paths in MCP servers' tools (the filesystem
// server's path, paths, source and destination among them). Only string values (or lists of
// strings) under these names are taken as paths.
var pathKeys = map[string]bool{
	"path": true, "paths": true, "file": true, "files": true, "file_path": true, "filepath": true,
	"source": true, "destination": true, "dir": true, "directory": true,
}

// pathArg is a path a tool call names.
type pathArg struct {
	key, path string
}

// pathArgs lists the paths in a call's top-level arguments, with a leading ~ expanded as
// servers do.
func pathArgs(args map[string]any) []pathArg {
	var out []pathArg
	for k, v := range args {
		if !pathKeys[strings.ToLower(k)] {
			continue
		}
		switch v := v.(type) {
		case string:
			out = append(out, pathArg{k, expandHome(v)})
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok {
					out = append(out, pathArg{k, expandHome(s)})
				}
			}
		}
	}
	return out
}

// expandHome expands a leading ~ the way the filesystem server does.
func expandHome(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return p
	}
	return filepath.Join(home, p[1:])
}

// writes reports whether a tool may change files: anything not annotated read-only (MCP's
// default for readOnlyHint is false).
func writes(t *sdk.Tool) bool {
	return t == nil || t.Annotations == nil || !t.Annotations.ReadOnlyHint
}

// vetPaths checks the paths a call names before it is sent (see executor.PathVet): the reason
// to refuse it, or "".
func vetPaths(vet executor.PathVet, t *sdk.Tool, srv Server, args map[string]any) string {
	if vet == nil {
		return ""
	}
	w := writes(t)
	extra := writableFolders(srv.Writable)
	for _, a := range pathArgs(args) {
		if err := vet(a.path, w, extra); err != nil {
			return fmt.Sprintf("%s %q: %v", a.key, a.path, err)
		}
	}
	return ""
}

// writableFolders are a server's further writable folders as absolute paths.
func writableFolders(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if abs, err := filepath.Abs(expandHome(d)); err == nil {
			out = append(out, abs)
		}
	}
	return out
}

// toolOf returns the server's description of a tool (nil when it is not listed).
func (c *conn) toolOf(name string) *sdk.Tool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}
