package api

import (
	"fmt"
	"strings"
)

// Event types of what an external agent says of itself beside the conversation: the permission
// mode it runs in, its plan, its own account of usage, the diff of its turn, the commands it
// offers and the warnings it gives about its configuration.
const (
	TypeExecutorMode  = "executor.mode"
	TypeAgentPlan     = "agent.plan"
	TypeAgentUsage    = "agent.usage"
	TypeAgentDiff     = "agent.diff"
	TypeAgentCommands = "agent.commands"
	TypeAgentWarning  = "agent.warning"
	TypeAgentSession  = "agent.session"
)

// Who chose an agent's mode (ExecutorMode.By).
const (
	ModeByExo   = "exo"
	ModeByUser  = "user"
	ModeByAgent = "agent"
)

// ExecutorMode records the session mode an agent runs in (ACP session modes: claude-agent-acp's
// default, acceptEdits…, codex-acp's read-only, workspace-write…): the one exo chose so that the
// agent asks exo before it acts, the one the user asked for, or one the agent switched to.
type ExecutorMode struct {
	Executor string `json:"executor"`
	// Mode is the mode's id; Name its label and Description what the agent says of it.
	Mode        string `json:"mode"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	// By is who chose it: exo, user or agent.
	By string `json:"by"`
	// Asks is set when, by what the agent says of the mode, the agent asks exo before acting.
	Asks bool `json:"asks,omitempty"`
	// Available lists the ids of the modes the agent offers.
	Available []string `json:"available,omitempty"`
}

// PlanStep is one entry of an agent's plan.
type PlanStep struct {
	Text string `json:"text"`
	// Status is pending, in_progress or completed.
	Status   string `json:"status"`
	Priority string `json:"priority,omitempty"`
}

// AgentPlan is an agent's plan as it last stated it (each update replaces the whole plan).
type AgentPlan struct {
	Executor    string     `json:"executor"`
	Explanation string     `json:"explanation,omitempty"`
	Steps       []PlanStep `json:"steps"`
}

// AgentUsage is an agent's own account of its context and spending (ACP usage_update, Codex
// thread/tokenUsage/updated). exo measures the model traffic itself (model.completed); this is
// what the agent believes, shown beside it.
type AgentUsage struct {
	Executor string `json:"executor"`
	// Context is the tokens in the agent's context now, Window the size of that window.
	Context int `json:"context,omitempty"`
	Window  int `json:"window,omitempty"`
	// Input, Output, Cached and Reasoning are the session's tokens so far, by the agent's count.
	Input     int `json:"input,omitempty"`
	Output    int `json:"output,omitempty"`
	Cached    int `json:"cached,omitempty"`
	Reasoning int `json:"reasoning,omitempty"`
	// Cost is the session's cost so far by the agent's reckoning, in Currency.
	Cost     float64 `json:"cost,omitempty"`
	Currency string  `json:"currency,omitempty"`
}

// AgentDiff is the unified diff of the files an agent changed in its turn so far (Codex's
// turn/diff/updated).
type AgentDiff struct {
	Executor string `json:"executor"`
	Diff     string `json:"diff"`
	// Files are the paths the diff touches.
	Files []string `json:"files,omitempty"`
}

// AgentCommand is a command an agent offers (a slash command of its own).
type AgentCommand struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// AgentCommands lists the commands an agent offers, as it last listed them.
type AgentCommands struct {
	Executor string         `json:"executor"`
	Commands []AgentCommand `json:"commands"`
}

// AgentWarning is a warning an agent gave about its own configuration or environment (Codex's
// configWarning).
type AgentWarning struct {
	Executor string `json:"executor"`
	Summary  string `json:"summary"`
	Details  string `json:"details,omitempty"`
}

// AgentSession records that an agent process took up the agent's own saved session
// (ACP session/load) instead of starting a new one from exo's log, or tried and could not.
type AgentSession struct {
	Executor string `json:"executor"`
	// Session is the agent's session id.
	Session string `json:"session"`
	// Loaded is set when the agent loaded it; Error says why not otherwise.
	Loaded bool   `json:"loaded,omitempty"`
	Error  string `json:"error,omitempty"`
	// Since counts the messages of exo's log after the agent's session, given to it as text.
	Since int `json:"since,omitempty"`
}

func sessionSummary(p *AgentSession) string {
	if !p.Loaded {
		return fmt.Sprintf("%s could not load its session %s (%s); it carries on from exo's log", p.Executor, p.Session, oneLine(p.Error))
	}
	s := fmt.Sprintf("%s loaded its session %s", p.Executor, p.Session)
	if p.Since > 0 {
		s += fmt.Sprintf(", and was given the %d messages recorded since", p.Since)
	}
	return s
}

// maxDiffRecorded bounds the diff an agent.diff keeps.
const maxDiffRecorded = 256 << 10

// CutDiff bounds a diff for agent.diff, saying what was cut.
func CutDiff(d string) string {
	if len(d) <= maxDiffRecorded {
		return d
	}
	return d[:maxDiffRecorded] + fmt.Sprintf("\n[… %d more bytes not recorded]\n", len(d)-maxDiffRecorded)
}

// DiffFiles lists the files a unified diff touches ("diff --git a/X b/X" lines).
func DiffFiles(diff string) []string {
	var out []string
	for _, l := range strings.Split(diff, "\n") {
		if rest, ok := strings.CutPrefix(l, "diff --git a/"); ok {
			if i := strings.Index(rest, " b/"); i >= 0 {
				out = append(out, rest[:i])
			}
		}
	}
	return out
}

// PlanChecklist renders a plan as a checklist, one step a line: [x] done, [~] in progress,
// [ ] to do.
func PlanChecklist(p *AgentPlan) string {
	var b strings.Builder
	if p.Explanation != "" {
		b.WriteString(p.Explanation + "\n")
	}
	for _, s := range p.Steps {
		mark := "[ ]"
		switch s.Status {
		case "completed":
			mark = "[x]"
		case "in_progress", "inProgress":
			mark = "[~]"
		}
		b.WriteString(mark + " " + oneLine(s.Text) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// planSummary is a plan in one line: how many steps are done, and the one in progress.
func planSummary(p *AgentPlan) string {
	done, cur := 0, ""
	for _, s := range p.Steps {
		switch s.Status {
		case "completed":
			done++
		case "in_progress", "inProgress":
			if cur == "" {
				cur = s.Text
			}
		}
	}
	s := fmt.Sprintf("plan: %d/%d done", done, len(p.Steps))
	if cur != "" {
		s += ", now: " + oneLine(cur)
	}
	return s
}

func modeSummary(p *ExecutorMode) string {
	s := fmt.Sprintf("%s mode %s", p.Executor, p.Mode)
	if p.Name != "" && p.Name != p.Mode {
		s += " (" + p.Name + ")"
	}
	switch p.By {
	case ModeByAgent:
		s += ", switched by the agent"
	default:
		s += ", chosen by " + p.By
	}
	if !p.Asks {
		s += "; the agent may act without asking exo"
	}
	return s
}

func usageSummary(p *AgentUsage) string {
	var parts []string
	if p.Window > 0 {
		parts = append(parts, fmt.Sprintf("context %d/%d tokens", p.Context, p.Window))
	} else if p.Context > 0 {
		parts = append(parts, fmt.Sprintf("context %d tokens", p.Context))
	}
	if p.Input+p.Output > 0 {
		parts = append(parts, fmt.Sprintf("%d in, %d out", p.Input, p.Output))
	}
	if p.Cost > 0 {
		parts = append(parts, fmt.Sprintf("%.4f %s", p.Cost, firstNonEmpty(p.Currency, "USD")))
	}
	if len(parts) == 0 {
		return p.Executor + " usage"
	}
	return p.Executor + " says: " + strings.Join(parts, ", ")
}

func commandsSummary(p *AgentCommands) string {
	names := make([]string, 0, len(p.Commands))
	for _, c := range p.Commands {
		names = append(names, "/"+c.Name)
	}
	const show = 8
	s := fmt.Sprintf("%s offers %d commands", p.Executor, len(names))
	if len(names) > 0 {
		s += ": " + strings.Join(names[:min(show, len(names))], " ")
		if len(names) > show {
			s += " …"
		}
	}
	return s
}

func init() {
	RegisterType(TypeExecutorMode, typed(FamilySession, modeSummary))
	RegisterType(TypeAgentPlan, typed(FamilyModel, planSummary))
	RegisterType(TypeAgentUsage, typed(FamilyModel, usageSummary))
	RegisterType(TypeAgentDiff, typed(FamilyWorkspace, func(p *AgentDiff) string {
		return fmt.Sprintf("%s diff of the turn: %s", p.Executor, strings.Join(p.Files, ", "))
	}))
	RegisterType(TypeAgentCommands, typed(FamilySession, commandsSummary))
	RegisterType(TypeAgentSession, typed(FamilySession, sessionSummary))
	RegisterType(TypeAgentWarning, typed(FamilyError, func(p *AgentWarning) string {
		return p.Executor + " warns: " + oneLine(p.Summary)
	}))
	stateAppliers[TypeExecutorMode] = func(s *SessionState, e Event, p any) {
		m := p.(*ExecutorMode)
		if m.By == ModeByUser {
			s.ExecutorMode = m.Mode
		}
		s.AgentMode = m.Mode
		s.addItem(Item{Seq: e.Seq, Kind: ItemNotice, Text: Summary(e)})
	}
	stateAppliers[TypeAgentPlan] = func(s *SessionState, e Event, p any) {
		s.setPlan(*p.(*AgentPlan))
		s.addItem(Item{Seq: e.Seq, Kind: ItemPlan, Text: PlanChecklist(p.(*AgentPlan))})
	}
	stateAppliers[TypeAgentUsage] = func(s *SessionState, _ Event, p any) {
		u := p.(*AgentUsage)
		if u.Context > 0 || u.Window > 0 {
			s.AgentContext, s.AgentWindow = u.Context, u.Window
		}
		if u.Cost > 0 {
			s.AgentCost = u.Cost
		}
	}
	stateAppliers[TypeAgentDiff] = func(s *SessionState, e Event, p any) {
		it := Item{Seq: e.Seq, Kind: ItemNotice, Text: Summary(e), Diff: capText(p.(*AgentDiff).Diff)}
		for i := len(s.Items) - 1; i >= 0 && s.Items[i].Kind != ItemUser; i-- {
			if s.Items[i].Kind == ItemNotice && s.Items[i].Diff != "" { // the turn's diff so far: replaced
				it.Text = capText(it.Text)
				s.Items[i] = it
				return
			}
		}
		s.addItem(it)
	}
	stateAppliers[TypeAgentSession] = func(s *SessionState, e Event, _ any) {
		s.addItem(Item{Seq: e.Seq, Kind: ItemNotice, Text: Summary(e)})
	}
	stateAppliers[TypeAgentWarning] = func(s *SessionState, e Event, _ any) {
		s.addItem(Item{Seq: e.Seq, Kind: ItemNotice, Text: Summary(e)})
	}
}
