// Package plugins wires what users already run into exo's default executor: MCP servers' tools
// (harness/mcp), and the hooks, custom commands, skills and telemetry of the sibling packages.
// The app and the CLI call Install once per executor and Close when done.
package plugins

import (
	"context"

	"exo/harness"
	"exo/harness/commands"
	"exo/harness/executor"
	"exo/harness/hooks"
	"exo/harness/mcp"
	"exo/harness/skills"
	"exo/harness/telemetry"
	"exo/harness/trust"
)

// Plugins is what Install wired; Close stops what it started (MCP servers).
type Plugins struct {
	// MCP runs the configured MCP servers and offers their tools.
	MCP *mcp.Manager
	// Hooks runs the user's hooks.
	Hooks *hooks.Runner
	// Telemetry exports traces and metrics when OTEL_* variables configure it; nil otherwise.
	Telemetry *telemetry.Telemetry
	// Trust is the user's record of trusted project files: a project's .mcp.json servers and
	// .exo/settings*.json hooks run only when it trusts them.
	Trust *trust.Store
	// Warnings are problems that disabled a plugin without stopping exo (a bad OTEL_* value).
	Warnings []string
}

// Install adds the plugins to an executor's options.
func Install(h *harness.Harness, o *executor.Options) *Plugins {
	tr := trust.Open(h.Home())
	p := &Plugins{MCP: mcp.NewManager(h, mcp.Options{Trust: tr}), Hooks: hooks.NewRunner(h), Trust: tr}
	p.Hooks.Trust = tr
	o.ToolSources = append(o.ToolSources, p.MCP, skills.NewSource(h))
	if o.Expand == nil {
		o.Expand = commands.Expander
	}
	if telemetry.Enabled() {
		t, err := telemetry.Setup(context.Background(), h.Redact)
		if err != nil {
			p.Warnings = append(p.Warnings, "telemetry off: "+err.Error())
		}
		p.Telemetry = t
	}
	if o.Hooks == nil {
		o.Hooks = p.Hooks
	}
	return p
}

// Close stops the MCP servers and flushes telemetry.
func (p *Plugins) Close() {
	if p == nil {
		return
	}
	if p.MCP != nil {
		p.MCP.Close()
	}
	_ = p.Telemetry.Shutdown(context.Background())
}
