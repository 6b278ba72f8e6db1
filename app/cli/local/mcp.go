package local

import (
	"context"
	"fmt"
	"io"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"exo/app/cli"
	"exo/harness/api"
	"exo/harness/mcp"
	"exo/harness/mcpserve"
)

// mcpAdd writes the server entry of one exo mcp add and returns the file and the transport.
func mcpAdd(ctx context.Context, hc api.Client, a cli.MCPAdd) (string, string, error) {
	c := mcp.ServerConfig{Type: a.Transport, Approval: a.Approve, AutoApprove: a.AutoApprove, Timeout: a.Timeout}
	if c.Transport() == mcp.TransportStdio {
		c.Type, c.Command, c.Args = "", a.Args[0], a.Args[1:]
	} else if len(a.Args) != 1 {
		return "", "", cli.UsageError(fmt.Errorf("an %s server takes NAME URL, no further arguments", c.Transport()))
	} else {
		c.URL = a.Args[0]
	}
	if a.NoSandbox {
		c.Sandbox = "off"
	}
	if a.NoNetwork {
		no := false
		c.Network = &no
	}
	var err error
	if c.Env, err = pairs(a.Env, "="); err != nil {
		return "", "", err
	}
	if c.Headers, err = pairs(a.Headers, ":"); err != nil {
		return "", "", err
	}
	if err := refuseRawSecrets(ctx, hc, c); err != nil {
		return "", "", err
	}
	path, err := mcp.PathFor(a.Scope, a.Workspace)
	if err != nil {
		return "", "", cli.UsageError(err)
	}
	if err := mcp.Add(path, a.Name, c); err != nil {
		return "", "", cli.UsageError(err)
	}
	return path, c.Transport(), nil
}

// refuseRawSecrets refuses a config that holds a sealed secret's raw value: the file is plain
// text (and .mcp.json is shared), so it must name the secret instead.
func refuseRawSecrets(ctx context.Context, hc api.Client, c mcp.ServerConfig) error {
	var vals []string
	vals = append(vals, c.Args...)
	for _, m := range []map[string]string{c.Env, c.Headers} {
		for _, v := range m {
			vals = append(vals, v)
		}
	}
	for _, v := range append(vals, c.URL, c.Command) {
		red, err := hc.Redact(ctx, v)
		if err != nil {
			return err
		}
		if red != v {
			return cli.UsageError(fmt.Errorf("a value holds the sealed secret %s in clear; write ${secret:NAME} instead so it stays sealed", strings.TrimSpace(red)))
		}
	}
	return nil
}

// pairs parses KEY=VALUE (or Name: value) flags.
func pairs(list []string, sep string) (map[string]string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, sep)
		if !ok || strings.TrimSpace(k) == "" {
			return nil, cli.UsageError(fmt.Errorf("%q: write KEY%sVALUE", kv, sep))
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}

// mcpRemove removes a server from scope's file; an unknown scope is a usage error.
func mcpRemove(scope, workspace, name string) (string, bool, error) {
	path, err := mcp.PathFor(scope, workspace)
	if err != nil {
		return "", false, cli.UsageError(err)
	}
	ok, err := mcp.Remove(path, name)
	return path, ok, err
}

// mcpFiles names the project's and the user's MCP configuration files.
func mcpFiles() (string, string) { return mcp.ProjectFile, mcp.UserFile() }

// mcpServe runs the MCP server on s's stdin and stdout until the client leaves.
func mcpServe(ctx context.Context, c api.Client, s cli.MCPServe) error {
	t := &sdk.IOTransport{Reader: io.NopCloser(s.Stdin), Writer: nopWriteCloser{s.Stdout}}
	return mcpserve.Serve(ctx, c, mcpserve.Options{Version: s.Version, Workspace: s.Workspace, Allow: s.Allow}, t)
}

// nopWriteCloser is a writer whose Close does nothing (stdout stays the process's).
type nopWriteCloser struct{ io.Writer }

// Close does nothing.
func (nopWriteCloser) Close() error { return nil }
