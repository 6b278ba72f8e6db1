package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"exo/harness/api"
	"exo/harness/config"
	"exo/harness/hooks"
	"exo/harness/mcp"
	"exo/harness/trust"
	"exo/sandbox"
)

// Trust states of a project file.
const (
	trustTrusted   = "trusted"
	trustUntrusted = "untrusted"
	trustChanged   = "changed"
	trustInert     = "inert"
)

// maxTrustFile bounds a project file read for trust.
const maxTrustFile = 1 << 20

// ProjectTrust reports what a project's files would run and whether the user trusts them.
func (s *Service) ProjectTrust(ctx context.Context, workspace string) (api.ProjectTrust, error) {
	if workspace == "" || !filepath.IsAbs(workspace) {
		return api.ProjectTrust{}, invalidf("give the project's absolute path, not %q", workspace)
	}
	key, err := trust.Key(workspace)
	if err != nil {
		return api.ProjectTrust{}, invalid(err)
	}
	tr := s.plugins.Trust
	out := api.ProjectTrust{Workspace: workspace, Project: key, Files: []api.TrustFile{}, Trusted: true}
	for _, rel := range append(slices.Clone(trust.ProjectFiles), config.ProjectFile) {
		// In the agent's workspace: read beneath it without following a link, only a regular
		// file, bounded (a named pipe or a link to /dev/zero must not hang exo trust).
		b, err := sandbox.ReadBeneath(workspace, rel, maxTrustFile)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return api.ProjectTrust{}, fmt.Errorf("read %s: %w", rel, err)
		}
		f := api.TrustFile{Path: filepath.ToSlash(rel), Hash: trust.Hash(b)}
		f.Runs, err = runs(filepath.Join(workspace, rel), rel, b)
		if err != nil {
			f.Error = err.Error()
		}
		f.State = fileState(tr.Check(workspace, rel, b), len(f.Runs) > 0)
		if f.State == trustUntrusted || f.State == trustChanged {
			out.Trusted = false
		}
		out.Files = append(out.Files, f)
	}
	return s.redactTrust(out), nil
}

// fileState names a file's trust.
func fileState(checked error, runsCode bool) string {
	switch {
	case !runsCode:
		return trustInert
	case checked == nil:
		return trustTrusted
	case errors.Is(checked, trust.ErrChanged):
		return trustChanged
	}
	return trustUntrusted
}

// runs lists what a project file would start.
func runs(path, rel string, b []byte) ([]string, error) {
	if rel == config.ProjectFile {
		return config.Loosens(path, b)
	}
	if filepath.Base(rel) == mcp.ProjectFile {
		f, err := mcp.ParseFile(path, b)
		if err != nil {
			return nil, err
		}
		var out []string
		for name, c := range f.MCPServers {
			out = append(out, serverLine(name, c))
		}
		sort.Strings(out)
		return out, nil
	}
	hs, err := hooks.Parse(path, b)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, h := range hs {
		m := ""
		if h.Matcher != "" {
			m = " (" + h.Matcher + ")"
		}
		out = append(out, fmt.Sprintf("hook %s%s: %s", h.Event, m, h.Command))
	}
	sort.Strings(out)
	return out, nil
}

// serverLine describes an MCP server entry: its command line or URL, and its environment.
func serverLine(name string, c mcp.ServerConfig) string {
	line := fmt.Sprintf("MCP server %s (%s): %s", name, c.Transport(), c.Target())
	if c.Disabled {
		line += " [disabled]"
	}
	var env []string
	for k, v := range c.Env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	if len(env) > 0 {
		line += " · env " + strings.Join(env, " ")
	}
	if c.Sandbox == "off" {
		line += " · unsandboxed"
	}
	return line
}

// redactTrust redacts what a report shows of the files (a file may hold a secret in clear).
func (s *Service) redactTrust(p api.ProjectTrust) api.ProjectTrust {
	for i := range p.Files {
		for j, r := range p.Files[i].Runs {
			p.Files[i].Runs[j] = s.h.Redact(r)
		}
		p.Files[i].Error = s.h.Redact(p.Files[i].Error)
	}
	return p
}

// Trust records the user's trust in a project's files exactly as reviewed: every file that
// would run something must be named with the hash the user was shown.
func (s *Service) Trust(ctx context.Context, req api.TrustRequest) (api.ProjectTrust, error) {
	cur, err := s.ProjectTrust(ctx, req.Workspace)
	if err != nil {
		return cur, err
	}
	if req.Revoke {
		if err := s.plugins.Trust.Trust(req.Workspace, nil); err != nil {
			return cur, err
		}
		return s.ProjectTrust(ctx, req.Workspace)
	}
	files := map[string]string{}
	for _, f := range cur.Files {
		want, ok := req.Files[f.Path]
		switch {
		case !ok && f.State == trustInert:
			continue
		case !ok:
			return cur, invalidf("%s was not reviewed: look at it with 'exo trust --show' first", f.Path)
		case want != f.Hash:
			return cur, invalidf("%s changed since it was shown to you: review it again with 'exo trust --show'", f.Path)
		}
		files[f.Path] = f.Hash
	}
	if err := s.plugins.Trust.Trust(req.Workspace, files); err != nil {
		return cur, err
	}
	return s.ProjectTrust(ctx, req.Workspace)
}
