package service

import (
	"context"
	"encoding/json"
	"fmt"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/commands"
	"exo/harness/executors"
	"exo/harness/extexec"
	"exo/harness/mcp"
)

// Doctor reports the store, the registry and what this machine's sandbox enforces.
func (s *Service) Doctor(ctx context.Context, workspace string) (api.DoctorReport, error) {
	st, err := s.h.Stats()
	if err != nil {
		return api.DoctorReport{}, err
	}
	rep := api.DoctorReport{Home: s.h.Home(), DB: st.Path, Schema: st.Schema, DBBytes: st.Bytes,
		Artifacts: st.Artifacts, ArtifactBytes: st.ArtifactBytes, Daemon: s.opts.Daemon, Executors: executors.Probe(),
		Cluster: s.cluster(ctx)}
	if d := s.h.Damaged(); d != nil {
		rep.Damaged = d.Error()
	}
	if ro := s.h.ReadOnly(); ro != nil {
		rep.ReadOnly = ro.Error()
	}
	if r := s.h.Recovery(); !r.Empty() {
		rep.Recovered = &r
	}
	all, err := s.h.Sessions()
	if err != nil {
		return rep, err
	}
	rep.Sessions = len(all)
	ms, err := s.h.Models()
	if err != nil {
		return rep, err
	}
	rep.Models, rep.DefaultModel = len(ms), s.h.DefaultModelName()
	caps := s.h.Capabilities()
	rep.Sandbox, _ = json.Marshal(caps)
	rep.SandboxText = caps.String()
	rep.Enforced = harness.DefaultEnforcement(caps).String()
	agents := extexec.AgentEnforcement(s.h, extexec.Confinement{Nested: true})
	rep.Agents, rep.AgentsConfined = agents.String(), agents.Confined()
	if workspace != "" {
		rep.MCP, err = s.MCPStatus(ctx, workspace, true)
	}
	return rep, err
}

// MCPStatus lists the MCP servers configured for a workspace; check starts the ones not running
// and counts their tools.
func (s *Service) MCPStatus(ctx context.Context, workspace string, check bool) ([]mcp.Status, error) {
	if check {
		return s.plugins.MCP.Probe(ctx, workspace)
	}
	return s.plugins.MCP.Status(workspace)
}

// Redact replaces every sealed secret's value in text.
func (s *Service) Redact(ctx context.Context, text string) (string, error) {
	return s.h.Redact(text), nil
}

// Commands lists the custom slash commands a workspace offers: its .exo/commands and the
// user's, read without following links.
func (s *Service) Commands(ctx context.Context, workspace string) ([]api.CommandInfo, error) {
	var out []api.CommandInfo
	for _, c := range commands.Discover(workspace) {
		out = append(out, api.CommandInfo{Name: c.Name, Description: c.Description, ArgumentHint: c.ArgumentHint, Source: c.Source})
	}
	return out, nil
}

// cluster describes the etcd cluster of a shared store (nil on a local one).
func (s *Service) cluster(ctx context.Context) *api.ClusterReport {
	ci, err := s.h.Store().Cluster(ctx)
	if ci == nil {
		return nil
	}
	rep := &api.ClusterReport{Endpoints: ci.Endpoints, Namespace: ci.Namespace, Node: ci.Node, Leader: ci.Leader, Revision: ci.Revision,
		DBBytes: ci.DBBytes, QuotaBytes: ci.QuotaBytes, Lease: ci.Lease, TTLSeconds: int64(ci.TTL.Seconds()), LeftSeconds: int64(ci.TTLLeft.Seconds()),
		Reachable: ci.Reach.Up, Since: ci.Reach.Since, Outages: ci.Reach.Outages, Alarms: ci.Alarms}
	if ci.Reach.Err != nil {
		rep.Unreachable = ci.Reach.Err.Error()
	}
	if err != nil {
		rep.Error = err.Error()
	}
	for _, m := range ci.Members {
		rep.Members = append(rep.Members, api.ClusterMember{Name: m.Name, ID: fmt.Sprintf("%x", m.ID), ClientURLs: m.ClientURLs,
			Learner: m.Learner, Version: m.Version, DBBytes: m.DBBytes, Error: m.Err})
	}
	return rep
}
