package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"exo/harness"
	"exo/harness/api"
	"exo/sandbox"
)

// Transports a server may use.
const (
	TransportStdio = api.MCPTransportStdio
	TransportHTTP  = "http"
	TransportSSE   = "sse"
)

// Scopes a server's configuration comes from.
const (
	ScopeProject = api.MCPScopeProject
	ScopeUser    = api.MCPScopeUser
)

// ProjectFile is the project's MCP configuration, at the workspace root (Claude Code's name).
const ProjectFile = ".mcp.json"

// ServerConfig is one entry of mcpServers, in Claude Code's shape plus a few exo fields that
// other tools ignore.
type ServerConfig struct {
	// Type is stdio, http (streamable HTTP) or sse; empty means stdio with a command, http with
	// a url.
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`

	// Disabled keeps the server configured but unused (Cline's field).
	Disabled bool `json:"disabled,omitempty"`
	// AutoApprove lists tools (by their server-side name) that run without asking; the others
	// ask unless the session's policy says otherwise (Cline's field).
	AutoApprove []string `json:"autoApprove,omitempty"`
	// Approval is the default policy of this server's tools: ask (the default), auto or deny.
	Approval string `json:"approval,omitempty"`
	// Timeout bounds one tool call in seconds (default 120, or MCP_TOOL_TIMEOUT in ms); a call
	// past it kills the server, which is restarted on the next call.
	Timeout int `json:"timeout,omitempty"`
	// Sandbox is "on" (the default for stdio servers) or "off" to run the server unconfined.
	Sandbox string `json:"sandbox,omitempty"`
	// Network is false to cut a sandboxed stdio server off the network (default: allowed).
	Network *bool `json:"network,omitempty"`
	// Writable lists further directories a sandboxed stdio server may write to.
	Writable []string `json:"writable,omitempty"`
}

// Server is a configured server with its name and where it was configured.
type Server struct {
	Name   string
	Scope  string
	Source string // the file it came from
	// Untrusted says why a project server may not start (its .mcp.json is not trusted).
	Untrusted string
	ServerConfig
}

// File is an MCP configuration file: {"mcpServers": {...}}. Other keys are kept on rewrite.
type File struct {
	MCPServers map[string]ServerConfig `json:"mcpServers"`
	rest       map[string]json.RawMessage
}

// nameRE is the allowed shape of a server name (it becomes part of tool names).
var nameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,40}$`)

// ValidName reports whether a server name can be used.
func ValidName(name string) error {
	if !nameRE.MatchString(name) || strings.Contains(name, "__") {
		return fmt.Errorf("server name %q: use 1-40 letters, digits, '.', '-' or '_' (no '__')", name)
	}
	return nil
}

// Transport returns the server's transport, inferring it when Type is empty.
func (c ServerConfig) Transport() string {
	switch t := strings.ToLower(c.Type); {
	case t == "streamable-http" || t == "streamablehttp" || t == "http":
		return TransportHTTP
	case t != "":
		return t
	case c.Command == "" && c.URL != "":
		return TransportHTTP
	}
	return TransportStdio
}

// Target is the command line or URL, as configured, for display.
func (c ServerConfig) Target() string {
	if c.Transport() == TransportStdio {
		return strings.TrimSpace(c.Command + " " + strings.Join(c.Args, " "))
	}
	return c.URL
}

// Check reports a configuration that cannot work.
func (c ServerConfig) Check() error {
	switch c.Transport() {
	case TransportStdio:
		if c.Command == "" {
			return errors.New("a stdio server needs a command")
		}
	case TransportHTTP, TransportSSE:
		if c.URL == "" {
			return fmt.Errorf("an %s server needs a url", c.Transport())
		}
	default:
		return fmt.Errorf("unknown type %q (stdio, http or sse)", c.Type)
	}
	switch c.Approval {
	case "", "ask", "auto", "deny":
	default:
		return fmt.Errorf("approval %q: use ask, auto or deny", c.Approval)
	}
	switch c.Sandbox {
	case "", "on", "off":
	default:
		return fmt.Errorf("sandbox %q: use on or off", c.Sandbox)
	}
	return nil
}

// UserFile is the user's MCP configuration file, mcp.json in harness.ConfigDir().
func UserFile() string {
	if d := harness.ConfigDir(); d != "" {
		return filepath.Join(d, "mcp.json")
	}
	return ""
}

// maxConfigFile bounds a configuration file exo reads.
const maxConfigFile = 1 << 20

// ReadFile reads a configuration file to change it; a missing file is an empty one. Only a
// regular file of at most 1 MiB is read (a named pipe or /dev/zero would hang or fill memory),
// and a link at path is not followed (Write replaces it).
func ReadFile(path string) (*File, error) {
	b, err := sandbox.ReadBeneath(filepath.Dir(path), filepath.Base(path), maxConfigFile)
	if errors.Is(err, os.ErrNotExist) {
		return &File{MCPServers: map[string]ServerConfig{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read MCP config: %w", err)
	}
	return ParseFile(path, b)
}

// ParseFile parses the contents of a configuration file (path names it in errors).
func ParseFile(path string, b []byte) (*File, error) {
	f := &File{MCPServers: map[string]ServerConfig{}}
	if err := json.Unmarshal(b, &f.rest); err != nil {
		return nil, fmt.Errorf("MCP config %s: %w", path, err)
	}
	if raw, ok := f.rest["mcpServers"]; ok {
		if err := json.Unmarshal(raw, &f.MCPServers); err != nil {
			return nil, fmt.Errorf("MCP config %s: mcpServers: %w", path, err)
		}
	}
	if f.MCPServers == nil {
		f.MCPServers = map[string]ServerConfig{}
	}
	return f, nil
}

// Write saves the file (0600: headers may name secrets), keeping its other keys.
func (f *File) Write(path string) error {
	out := map[string]any{}
	for k, v := range f.rest {
		out[k] = v
	}
	out["mcpServers"] = f.MCPServers
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("encode MCP config: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("write MCP config: %w", err)
	}
	// A project's file is in the agent's workspace: a link planted at it (or at a temporary
	// name beside it) is replaced, never written through.
	if err := sandbox.WriteFileIn(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write MCP config: %w", err)
	}
	return nil
}

// Load returns the servers configured for a workspace: the user's, then the project's
// .mcp.json, a project entry replacing a user entry of the same name. Sorted by name.
func Load(workspace, userFile string) ([]Server, error) {
	return LoadChecked(workspace, userFile, nil)
}

// Check says whether the contents of a project's configuration file may run; nil trusts all.
type Check func(rel string, data []byte) error

// LoadChecked is Load with the project's .mcp.json checked against the user's trust: when
// check refuses it, its servers are returned with Untrusted set (and are never started).
func LoadChecked(workspace, userFile string, check Check) ([]Server, error) {
	byName := map[string]Server{}
	for _, src := range []struct{ scope, path string }{{ScopeUser, userFile}, {ScopeProject, projectPath(workspace)}} {
		if src.path == "" {
			continue
		}
		// The project's file is read beneath the workspace, following no link, and bounded.
		b, err := sandbox.ReadFileIn(workspace, src.path, maxConfigFile)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read MCP config: %w", err)
		}
		f, err := ParseFile(src.path, b)
		if err != nil {
			return nil, err
		}
		untrusted := ""
		if src.scope == ScopeProject && check != nil {
			if err := check(ProjectFile, b); err != nil {
				untrusted = err.Error()
			}
		}
		for name, c := range f.MCPServers {
			byName[name] = Server{Name: name, Scope: src.scope, Source: src.path, Untrusted: untrusted, ServerConfig: c}
		}
	}
	out := make([]Server, 0, len(byName))
	for _, s := range byName {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// projectPath is the workspace's .mcp.json, or "" without a workspace.
func projectPath(workspace string) string {
	if workspace == "" {
		return ""
	}
	return filepath.Join(workspace, ProjectFile)
}

// PathFor returns the file a scope's servers are kept in.
func PathFor(scope, workspace string) (string, error) {
	switch scope {
	case ScopeUser:
		if p := UserFile(); p != "" {
			return p, nil
		}
		return "", errors.New("no user config folder (set XDG_CONFIG_HOME or HOME)")
	case ScopeProject:
		return projectPath(workspace), nil
	}
	return "", fmt.Errorf("scope %q: use user or project", scope)
}

// Add writes a server into a scope's file, replacing one of the same name.
func Add(path, name string, c ServerConfig) error {
	if err := ValidName(name); err != nil {
		return err
	}
	if err := c.Check(); err != nil {
		return fmt.Errorf("server %s: %w", name, err)
	}
	f, err := ReadFile(path)
	if err != nil {
		return err
	}
	f.MCPServers[name] = c
	return f.Write(path)
}

// Remove deletes a server from a file; it reports whether it was there.
func Remove(path, name string) (bool, error) {
	f, err := ReadFile(path)
	if err != nil {
		return false, err
	}
	if _, ok := f.MCPServers[name]; !ok {
		return false, nil
	}
	delete(f.MCPServers, name)
	return true, f.Write(path)
}
