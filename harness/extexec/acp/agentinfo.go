package acp

import (
	"slices"

	sdk "github.com/coder/acp-go-sdk"

	"exo/harness"
)

// besides records the session updates that are not the conversation: the agent's plan (as a
// checklist), the commands it offers (when they change) and its own account of usage (kept
// until the turn ends, the newest winning). It reports whether u was one of them. A plan or
// usage from before the session's first turn (session/load replaying the agent's history) is
// dropped.
func (pr *proc) besides(u sdk.SessionUpdate) bool {
	switch {
	case u.CurrentModeUpdate != nil:
		pr.modeChanged(u.CurrentModeUpdate)
	case u.AvailableCommandsUpdate != nil:
		pr.commandsChanged(u.AvailableCommandsUpdate.AvailableCommands)
	case u.Plan != nil:
		if pr.isOpen() {
			pr.queue(harness.MustRecord(harness.TypeAgentPlan, harness.ActorHarness, planRecord(pr.a.name, u.Plan.Entries)))
			pr.flushQueued()
		}
	case u.UsageUpdate != nil:
		if pr.isOpen() {
			rec := usageRecord(pr.a.name, u.UsageUpdate)
			pr.mu.Lock()
			pr.usage = &rec
			pr.mu.Unlock()
		}
	default:
		return false
	}
	return true
}

// isOpen reports whether the session has had its first turn.
func (pr *proc) isOpen() bool {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.opened
}

// planRecord is an ACP plan as agent.plan.
func planRecord(agent string, entries []sdk.PlanEntry) harness.AgentPlan {
	p := harness.AgentPlan{Executor: agent, Steps: []harness.PlanStep{}}
	for _, e := range entries {
		p.Steps = append(p.Steps, harness.PlanStep{Text: e.Content, Status: string(e.Status), Priority: string(e.Priority)})
	}
	return p
}

// usageRecord is an ACP usage_update as agent.usage.
func usageRecord(agent string, u *sdk.SessionUsageUpdate) harness.AgentUsage {
	rec := harness.AgentUsage{Executor: agent, Context: u.Used, Window: u.Size}
	if c := u.Cost; c != nil {
		rec.Cost, rec.Currency = c.Amount, c.Currency
	}
	return rec
}

// commandsRecord is an ACP available_commands_update as agent.commands.
func commandsRecord(agent string, cmds []sdk.AvailableCommand) harness.AgentCommands {
	rec := harness.AgentCommands{Executor: agent, Commands: []harness.AgentCommand{}}
	for _, c := range cmds {
		rec.Commands = append(rec.Commands, harness.AgentCommand{Name: c.Name, Description: c.Description})
	}
	return rec
}

// commandsChanged records the commands the agent offers when they differ from the last list.
func (pr *proc) commandsChanged(cmds []sdk.AvailableCommand) {
	rec := commandsRecord(pr.a.name, cmds)
	pr.mu.Lock()
	same := pr.commands != nil && slices.Equal(pr.commands, rec.Commands)
	pr.commands = rec.Commands
	pr.mu.Unlock()
	if same {
		return
	}
	pr.queue(harness.MustRecord(harness.TypeAgentCommands, harness.ActorHarness, rec))
	pr.flushQueued()
}

// takeUsage returns the agent's last account of usage not recorded yet (nil when none came).
func (pr *proc) takeUsage() *harness.AgentUsage {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	u := pr.usage
	pr.usage = nil
	return u
}

// flushUsage records the agent's last account of usage in the turn when the turn's end did not
// (it came after the prompt's answer).
func (pr *proc) flushUsage() {
	if u := pr.takeUsage(); u != nil {
		pr.queue(harness.MustRecord(harness.TypeAgentUsage, harness.ActorHarness, *u))
		pr.flushQueued()
	}
}
