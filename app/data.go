package app

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"exo/harness/api"
	"exo/views"
)

// convItems maps the Session projection's conversation to the conversation pane's items.
func convItems(st *api.SessionState) []views.ConvItem {
	out := make([]views.ConvItem, 0, len(st.Items)+1)
	if earlier := st.ItemCount - len(st.Items); earlier > 0 {
		are := "are"
		if earlier == 1 {
			are = "is"
		}
		out = append(out, views.ConvItem{Kind: views.KindNotice,
			Text: fmt.Sprintf("%s %s in the log: scrub the timeline to see the session as it was then", views.Plural(earlier, "earlier item"), are)})
	}
	for _, it := range st.Items {
		out = append(out, convItem(it))
	}
	return out
}

// convItem maps one projected item.
func convItem(it api.Item) views.ConvItem {
	c := views.ConvItem{Seq: it.Seq, Text: it.Text}
	switch it.Kind {
	case api.ItemUser:
		c.Kind, c.Attached = views.KindUser, strings.Join(it.Attached, "\n")
	case api.ItemAssistant:
		c.Kind, c.Cut = views.KindAssistant, api.CutLabel(it.Cut)
	case api.ItemThinking:
		c.Kind = views.KindThinking
	case api.ItemPlan:
		c.Kind = views.KindPlan
	case api.ItemTool:
		c.Kind, c.Tool, c.ArgsSummary, c.Output, c.Diff, c.Artifact = views.KindTool, it.Tool, it.Args, it.Output, it.Diff, it.Artifact
		c.Status, c.Duration = toolStatus(it.Status), time.Duration(it.DurationMs)*time.Millisecond
		if it.ExitCode != nil {
			c.ExitCode = *it.ExitCode
		}
		c.NoExitCode = it.ExitCode == nil && c.Status != views.ToolRunning
	case api.ItemDenied:
		c.Kind = views.KindDenied
	case api.ItemViolation:
		c.Kind = views.KindViolation
	case api.ItemError:
		c.Kind = views.KindError
	default:
		c.Kind = views.KindNotice
	}
	return c
}

// toolStatus maps a projected tool status.
func toolStatus(s string) views.ToolStatus {
	switch s {
	case "running":
		return views.ToolRunning
	case "ok":
		return views.ToolOK
	case "interrupted":
		return views.ToolCanceled
	case "denied":
		return views.ToolDenied
	}
	return views.ToolFailed
}

// siblingStatus maps a projected status to the siblings pane's.
func siblingStatus(s api.Status) views.SessionStatus {
	switch s {
	case api.StatusRunning:
		return views.StatusRunning
	case api.StatusWaiting:
		return views.StatusApproval
	case api.StatusPending:
		return views.StatusPending
	case api.StatusFailed, api.StatusInterrupted:
		return views.StatusFailed
	case api.StatusFinished:
		return views.StatusFinished
	case api.StatusSuspended:
		return views.StatusSuspended
	}
	return views.StatusIdle
}

// isScripted reports whether a model label names the scripted model.
func isScripted(label string) bool {
	return strings.Contains(label, "(scripted)") || strings.HasPrefix(label, "scripted")
}

// siblingRows lists every session for the siblings pane, children after their parents.
func siblingRows(all []api.SessionInfo) []views.SiblingRow {
	byID := make(map[string]api.SessionInfo, len(all))
	sessions := make([]*api.Session, 0, len(all))
	for _, in := range all {
		if in.Session.Archived {
			continue // exo session archive hid it
		}
		byID[in.Session.ID] = in
		sessions = append(sessions, in.Session)
	}
	rows := make([]views.SiblingRow, 0, len(all))
	for _, s := range ordered(sessions) {
		in := byID[s.ID]
		r := views.SiblingRow{ID: s.ID, Name: s.Name, Status: siblingStatus(in.Status), Model: strings.TrimSuffix(in.Model, " (scripted)"),
			Scripted: isScripted(in.Model), Steps: in.Steps, TokensIn: in.Usage.Input, TokensOut: in.Usage.Output, Cost: in.Cost,
			Parent: s.Parent, Dir: projectLabel(s), Drift: in.Drift, Conflicts: in.Conflicts, Clients: in.Clients, Executor: in.Executor,
			Node: in.Node, Live: in.Live, Orphaned: in.Orphaned}
		if in.Running && r.Status != views.StatusApproval {
			r.Status = views.StatusRunning
		}
		if in.Damaged != "" {
			r.Status = views.StatusFailed // its log cannot be read; exo sessions says why
		}
		rows = append(rows, r)
	}
	return rows
}

// projectLabel names the directory a session works for: its project's (forks work in private
// copies of it), shortened to the last element.
func projectLabel(s *api.Session) string {
	p := s.Settings["project"]
	if p == "" {
		p = s.Workspace
	}
	if p == "" {
		return "-"
	}
	return filepath.Base(p)
}

// ordered puts every session after its parent (depth first), oldest first among siblings.
func ordered(all []*api.Session) []*api.Session {
	kids := map[string][]*api.Session{}
	ids := map[string]bool{}
	for _, s := range all {
		ids[s.ID] = true
	}
	var roots []*api.Session
	for _, s := range all {
		if s.Parent != "" && ids[s.Parent] {
			kids[s.Parent] = append(kids[s.Parent], s)
		} else {
			roots = append(roots, s)
		}
	}
	var out []*api.Session
	var walk func(s *api.Session)
	walk = func(s *api.Session) {
		out = append(out, s)
		for _, k := range kids[s.ID] {
			walk(k)
		}
	}
	for _, r := range roots {
		walk(r)
	}
	return out
}
