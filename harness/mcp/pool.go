package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"

	"exo/harness"
)

// pool is the servers configured for one workspace.
type pool struct {
	ws    string
	key   string // the config files' identity when loaded; a change reloads
	conns map[string]*conn
	// blocked are the project's servers not started because their file is not trusted.
	blocked []Server

	mu    sync.Mutex
	names map[string][2]string // offered tool name → server, tool
}

// pool returns the workspace's pool, loading (or reloading, when a config file changed) its
// configuration; nil when no server is configured.
func (m *Manager) pool(workspace string) (*pool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := m.configKey(workspace)
	if m.closed {
		return nil, fmt.Errorf("MCP servers: exo is shutting down")
	}
	old := m.pools[workspace]
	if old != nil && old.key == key {
		return old, nil
	}
	servers, err := LoadChecked(workspace, m.opts.UserFile, m.checkFor(workspace))
	if err != nil {
		return nil, err
	}
	p := &pool{ws: workspace, key: key, conns: map[string]*conn{}, names: map[string][2]string{}}
	for _, s := range servers {
		if s.Untrusted != "" && !s.Disabled {
			p.blocked = append(p.blocked, s)
			continue
		}
		if s.Disabled || s.Check() != nil {
			continue
		}
		if o := old.conn(s.Name); o != nil && sameConfig(o.srv, s) {
			p.conns[s.Name] = o
			continue
		}
		p.conns[s.Name] = &conn{srv: s, report: m.recordNow}
	}
	if old != nil {
		for name, o := range old.conns {
			if p.conns[name] != o {
				go o.close()
			}
		}
	}
	m.pools[workspace] = p
	return p, nil
}

// conn returns a pool's connection by server name (nil-safe).
func (p *pool) conn(name string) *conn {
	if p == nil {
		return nil
	}
	return p.conns[name]
}

// sameConfig reports whether two entries configure the same server.
func sameConfig(a, b Server) bool {
	return fmt.Sprintf("%+v", a.ServerConfig) == fmt.Sprintf("%+v", b.ServerConfig)
}

// configKey identifies the current contents of the config files by size and time, and the
// trust they were checked under. Caller holds m.mu.
func (m *Manager) configKey(workspace string) string {
	var b strings.Builder
	if m.opts.Trust != nil {
		b.WriteString(m.opts.Trust.Stamp() + ";" + m.projects[workspace] + ";")
	}
	for _, p := range []string{m.opts.UserFile, projectPath(workspace)} {
		if fi, err := os.Stat(p); err == nil {
			fmt.Fprintf(&b, "%s:%d:%d;", p, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return b.String()
}

// sorted returns the connections by server name.
func (p *pool) sorted() []*conn {
	out := make([]*conn, 0, len(p.conns))
	for _, c := range p.conns {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].srv.Name < out[j].srv.Name })
	return out
}

// remember maps an offered tool name to its server and tool.
func (p *pool) remember(name, server, tool string) {
	p.mu.Lock()
	p.names[name] = [2]string{server, tool}
	p.mu.Unlock()
}

// find resolves an offered tool name to a connection and the server's tool name. A name never
// listed (the server is down) is split on "__".
func (p *pool) find(name string) (*conn, string, error) {
	p.mu.Lock()
	ref, ok := p.names[name]
	p.mu.Unlock()
	if !ok {
		server, tool, found := strings.Cut(strings.TrimPrefix(name, ToolPrefix), "__")
		if !found {
			return nil, "", fmt.Errorf("%q is not an MCP tool name (mcp__SERVER__TOOL)", name)
		}
		ref = [2]string{server, tool}
	}
	c := p.conns[ref[0]]
	if c == nil {
		return nil, "", fmt.Errorf("no MCP server %q is configured here; the servers are: %s", ref[0], strings.Join(p.names0(), ", "))
	}
	return c, ref[1], nil
}

// names0 lists the pool's server names.
func (p *pool) names0() []string {
	var out []string
	for _, c := range p.sorted() {
		out = append(out, c.srv.Name)
	}
	return out
}

// badChars are those providers refuse in tool names.
var badChars = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// toolName is the name offered to the model: mcp__SERVER__TOOL, cut to 64 characters with a
// hash when longer (providers' limit).
func toolName(server, tool string) string {
	n := ToolPrefix + badChars.ReplaceAllString(server, "_") + "__" + badChars.ReplaceAllString(tool, "_")
	if len(n) <= 64 {
		return n
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	return n[:55] + "_" + hex.EncodeToString(sum[:4])
}

// checkFor returns the trust check of a workspace's project file (nil without a trust store).
// Caller holds m.mu.
func (m *Manager) checkFor(workspace string) Check {
	if m.opts.Trust == nil {
		return nil
	}
	dir := workspace
	if p := m.projects[workspace]; p != "" {
		dir = p
	}
	return func(rel string, data []byte) error { return m.opts.Trust.Check(dir, rel, data) }
}

// learnProject remembers the project a session's workspace belongs to (a fork's copy follows
// the trust of the folder it was forked from).
func (m *Manager) learnProject(s *harness.Session) {
	p := s.Settings["project"]
	if p == "" || p == s.Workspace {
		return
	}
	m.mu.Lock()
	m.projects[s.Workspace] = p
	m.mu.Unlock()
}
