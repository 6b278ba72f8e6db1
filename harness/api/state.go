package api

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Status is a session's live state as projected from its events.
type Status string

// Session statuses.
const (
	StatusIdle      Status = "idle"
	StatusPending   Status = "pending" // a prompt waits for an executor
	StatusRunning   Status = "running"
	StatusWaiting   Status = "waiting" // for an approval
	StatusFailed    Status = "failed"
	StatusFinished  Status = "finished"
	StatusSuspended Status = "suspended"
)

// ItemKind is the kind of a conversation item.
type ItemKind string

// Conversation item kinds.
const (
	ItemUser      ItemKind = "user"
	ItemAssistant ItemKind = "assistant"
	ItemThinking  ItemKind = "thinking"
	ItemTool      ItemKind = "tool"
	ItemNotice    ItemKind = "notice"
	ItemDenied    ItemKind = "denied"
	ItemViolation ItemKind = "violation"
	ItemError     ItemKind = "error"
	// ItemPlan is an agent's plan, Text a checklist (harness.PlanChecklist).
	ItemPlan ItemKind = "plan"
)

// Item is one entry of the conversation projection. Text is capped for the projection; the
// full content is always in the event at Seq.
type Item struct {
	Seq        uint64   `json:"seq"`
	Kind       ItemKind `json:"kind"`
	Text       string   `json:"text,omitempty"`
	Tool       string   `json:"tool,omitempty"`
	CallID     string   `json:"call_id,omitempty"`
	Args       string   `json:"args,omitempty"`
	Status     string   `json:"status,omitempty"` // running, ok, error, interrupted
	ExitCode   *int     `json:"exit_code,omitempty"`
	DurationMs int64    `json:"duration_ms,omitempty"`
	Output     string   `json:"output,omitempty"`
	Artifact   string   `json:"artifact,omitempty"`
	Diff       string   `json:"diff,omitempty"`
	ResultSeq  uint64   `json:"result_seq,omitempty"`
	// Attached names a user turn's attached files, each "path (size)" or "path: note".
	Attached []string `json:"attached,omitempty"`
	// Cut is set on an assistant answer that stopped before the model finished it (why: one of
	// the Cut* reasons), and on its thinking.
	Cut string `json:"cut,omitempty"`
	// Steered is set on a user message a running turn took at a step (prompt.steered).
	Steered bool `json:"steered,omitempty"`
}

// recentItems bounds how many conversation items the projection keeps in memory; older items
// are read back from the log on demand (ConversationPage).
const recentItems = 256

// itemTextCap bounds the text kept per item in the projection.
const itemTextCap = 8 << 10

// SessionState is the Session projection of a branch: status, counters, usage and the recent
// conversation. It is folded event by event and checkpointed as JSON.
type SessionState struct {
	Branch string `json:"branch"`
	Head   uint64 `json:"head"`
	Status Status `json:"status"`
	Model  string `json:"model,omitempty"`
	// Executor is the executor in force (executor.selected); "" is exo's own.
	Executor string `json:"executor,omitempty"`
	// ExecutorNative and ExecutorConfinement are the native tool mode and the agent process's
	// confinement the last executor.selected recorded: the session's settings of its executor.
	ExecutorNative      bool   `json:"executor_native,omitempty"`
	ExecutorConfinement string `json:"executor_confinement,omitempty"`
	// ExecutorMode is the agent mode the user chose for the executor in force (executor.mode by
	// the user), kept for its later turns; AgentMode is the mode the agent last ran in.
	ExecutorMode string `json:"executor_mode,omitempty"`
	AgentMode    string `json:"agent_mode,omitempty"`
	// AgentContext, AgentWindow and AgentCost are the agent's own account of its context and
	// cost (agent.usage), shown beside exo's measure.
	AgentContext int     `json:"agent_context,omitempty"`
	AgentWindow  int     `json:"agent_window,omitempty"`
	AgentCost    float64 `json:"agent_cost,omitempty"`
	Turns        int     `json:"turns"`
	Steps        int     `json:"steps"`
	ModelCalls   int     `json:"model_calls"`
	// SideCalls counts an agent's model calls beside the conversation (model.side).
	SideCalls    int       `json:"side_calls,omitempty"`
	ToolCalls    int       `json:"tool_calls"`
	ToolErrors   int       `json:"tool_errors"`
	Violations   int       `json:"violations"`
	Denials      int       `json:"denials"`
	Snapshots    int       `json:"snapshots"`
	Usage        Usage     `json:"usage"`
	Cost         float64   `json:"cost"`
	LastTTFTMs   int64     `json:"last_ttft_ms,omitempty"`
	LastContext  int       `json:"last_context,omitempty"` // input tokens of the last model call
	LastError    string    `json:"last_error,omitempty"`
	LastActivity time.Time `json:"last_activity"`
	// LastPromptAt is when the newest user prompt arrived (zero before the first).
	LastPromptAt time.Time `json:"last_prompt_at,omitzero"`
	// ModelInFlight is the seq of a model.requested with no completion yet.
	ModelInFlight uint64 `json:"model_in_flight,omitempty"`
	// CompactionInFlight is the seq of a compaction.started with no compaction.cost yet.
	CompactionInFlight uint64 `json:"compaction_in_flight,omitempty"`
	// OpenCalls maps tool call ids without a result to their tool.started seq.
	OpenCalls map[string]uint64 `json:"open_calls,omitempty"`
	// Approvals lists the tool calls waiting for an approval, oldest first.
	Approvals []string `json:"approvals,omitempty"`
	// Asked holds what each call of Approvals asks (tool, arguments, summary), in the same
	// order: an app that attaches while a call waits shows the question from it.
	Asked []ApprovalRequested `json:"asked,omitempty"`
	// Queued lists the prompts sent while a turn ran, oldest first (prompt.queued): sent when
	// the turn ends, or taken by it at its next step when they steer.
	Queued []QueuedPrompt `json:"queued,omitempty"`
	// LastSnapshot is the commit of the newest workspace snapshot in this history.
	LastSnapshot string `json:"last_snapshot,omitempty"`
	// ItemCount counts every conversation item ever projected; Items holds the newest.
	ItemCount int    `json:"item_count"`
	Items     []Item `json:"items,omitempty"`
	// Plan is the plan the agent last stated (agent.plan, or a to-do tool's call: exo's
	// todo_write, Claude Code's TodoWrite); nil before any or after an empty one.
	Plan *AgentPlan `json:"plan,omitempty"`
	// Instructions names the instruction files in the prompt (instructions.loaded), the user's
	// and the project's first, then nested ones in the order they were added.
	Instructions []string `json:"instructions,omitempty"`
}

// dropApprovals forgets every waiting approval: the turn that asked them ended.
func (s *SessionState) dropApprovals() {
	s.Approvals, s.Asked = nil, nil
}

// NewSessionState returns the empty projection of a branch.
func NewSessionState(branch string) *SessionState {
	return &SessionState{Branch: branch, Status: StatusIdle}
}

// Clone returns a deep copy safe to hand to another goroutine.
func (s *SessionState) Clone() *SessionState {
	c := *s
	c.Items = append([]Item(nil), s.Items...)
	c.Approvals = slices.Clone(s.Approvals)
	c.Asked = slices.Clone(s.Asked)
	c.Queued = slices.Clone(s.Queued)
	c.Instructions = slices.Clone(s.Instructions)
	if s.Plan != nil {
		p := *s.Plan
		p.Steps = slices.Clone(p.Steps)
		c.Plan = &p
	}
	if s.OpenCalls != nil {
		c.OpenCalls = make(map[string]uint64, len(s.OpenCalls))
		for k, v := range s.OpenCalls {
			c.OpenCalls[k] = v
		}
	}
	return &c
}

// Apply folds one event into the state. Unknown or malformed payloads only advance the head.
func (s *SessionState) Apply(e Event) {
	s.Head = e.Seq
	s.LastActivity = e.Time
	p, err := Decode(e)
	if err != nil {
		return
	}
	if fn, ok := stateAppliers[e.Type]; ok {
		fn(s, e, p)
	}
}

// stateAppliers holds the SessionState fold for each event type that affects it.
var stateAppliers = map[string]func(*SessionState, Event, any){
	TypeSessionCreated: func(s *SessionState, _ Event, p any) {
		s.Status, s.Model = StatusIdle, p.(*SessionCreated).Model
	},
	TypeInvocationReceived: func(s *SessionState, e Event, p any) {
		s.Turns++
		s.Status, s.LastPromptAt = StatusPending, e.Time
		inv := p.(*InvocationReceived)
		s.addItem(Item{Seq: e.Seq, Kind: ItemUser, Text: inv.Text, Attached: attachedLines(inv.Attachments)})
	},
	TypeStepStarted: func(s *SessionState, _ Event, _ any) { s.Steps++; s.Status = StatusRunning },
	TypeModelRequested: func(s *SessionState, e Event, p any) {
		s.Status, s.ModelInFlight = StatusRunning, e.Seq
		if m := p.(*ModelRequested).Model; m != "" {
			s.Model = m
		}
	},
	TypeModelCompleted: applyCompletion,
	TypeModelFailed: func(s *SessionState, e Event, p any) {
		f := p.(*ModelFailed)
		s.Status, s.LastError, s.ModelInFlight = StatusFailed, f.Error, 0
		s.addItem(Item{Seq: e.Seq, Kind: ItemError, Text: f.Error})
	},
	TypeToolStarted:   applyToolStart,
	TypeToolCompleted: applyToolResult,
	TypeApprovalRequested: func(s *SessionState, e Event, p any) {
		s.Status = StatusWaiting
		r := p.(*ApprovalRequested)
		s.Approvals = append(s.Approvals, r.CallID)
		s.Asked = append(s.Asked, *r)
		s.addItem(Item{Seq: e.Seq, Kind: ItemNotice, Text: "approval requested: " + Summary(e)})
	},
	TypeApprovalResolved: func(s *SessionState, _ Event, p any) {
		s.Status = StatusRunning
		id := p.(*ApprovalResolved).CallID
		s.Approvals = slices.DeleteFunc(s.Approvals, func(c string) bool { return c == id })
		s.Asked = slices.DeleteFunc(s.Asked, func(r ApprovalRequested) bool { return r.CallID == id })
		if len(s.Approvals) == 0 {
			s.dropApprovals()
		}
	},
	TypeTurnCancelled: func(s *SessionState, e Event, p any) {
		s.Status, s.ModelInFlight = StatusIdle, 0
		s.dropApprovals()
		s.addItem(Item{Seq: e.Seq, Kind: ItemNotice, Text: "turn cancelled: " + p.(*TurnCancelled).Reason})
	},
	TypeSecretDenied: func(s *SessionState, e Event, _ any) {
		s.Denials++
		s.addItem(Item{Seq: e.Seq, Kind: ItemDenied, Text: Summary(e)})
	},
	TypePolicyViolation: func(s *SessionState, e Event, _ any) {
		s.Violations++
		s.addItem(Item{Seq: e.Seq, Kind: ItemViolation, Text: Summary(e)})
	},
	TypeWorkspaceSnapshot: func(s *SessionState, _ Event, p any) {
		s.Snapshots++
		s.LastSnapshot = p.(*WorkspaceSnapshot).Commit
	},
	TypeWorkspaceRestored: func(s *SessionState, e Event, p any) {
		s.LastSnapshot = p.(*WorkspaceRestored).Commit
		s.addItem(Item{Seq: e.Seq, Kind: ItemNotice, Text: Summary(e)})
	},
	TypeSessionForked:     settledNotice,
	TypeSessionRewound:    settledNotice,
	TypeCompactionApplied: noticeApplier(""),
	TypeSessionSuspended:  noticeApplier(StatusSuspended),
	TypeSessionResumed:    noticeApplier(StatusIdle),
	TypeSessionFinished:   noticeApplier(StatusFinished),
	TypeHandoffRecorded:   noticeApplier(""),
	TypeTaskCompleted:     noticeApplier(""),
}

// settledNotice starts a new branch (a fork or a rewind) taken perhaps in the middle of a turn:
// no turn runs on it, so nothing is in flight, no approval waits and no tool is still running.
func settledNotice(s *SessionState, e Event, _ any) {
	s.Status, s.ModelInFlight, s.CompactionInFlight = StatusIdle, 0, 0
	s.dropApprovals()
	s.Queued = nil // the queue waited for a turn of the branch left behind
	for i := range s.Items {
		if s.Items[i].Kind == ItemTool && s.Items[i].Status == "running" {
			s.Items[i].Status = "interrupted"
		}
	}
	s.addItem(Item{Seq: e.Seq, Kind: ItemNotice, Text: Summary(e)})
}

// noticeApplier adds the event's summary as a notice and optionally sets a status.
func noticeApplier(st Status) func(*SessionState, Event, any) {
	return func(s *SessionState, e Event, _ any) {
		if st != "" {
			s.Status = st
		}
		s.addItem(Item{Seq: e.Seq, Kind: ItemNotice, Text: Summary(e)})
	}
}

func applyCompletion(s *SessionState, e Event, p any) {
	c := p.(*ModelCompleted)
	s.ModelCalls++
	s.ModelInFlight = 0
	s.Usage = s.Usage.Add(c.Usage)
	s.Cost += c.Cost
	s.LastTTFTMs = c.TTFTMs
	s.LastContext = c.Usage.Input // Input counts cached tokens too
	if c.Model != "" {
		s.Model = c.Model
	}
	if r := ReasoningText(c.Reasoning); r != "" {
		s.addItem(Item{Seq: e.Seq, Kind: ItemThinking, Text: r, Cut: c.Cut})
	}
	if c.Text != "" || c.Cut != "" {
		s.addItem(Item{Seq: e.Seq, Kind: ItemAssistant, Text: c.Text, Cut: c.Cut})
	}
	if len(c.ToolCalls) == 0 {
		s.Status = StatusIdle
	}
}

func applyToolStart(s *SessionState, e Event, p any) {
	t := p.(*ToolStarted)
	s.ToolCalls++
	if e.Actor != ActorUser { // a command the user ran does not start a turn
		s.Status = StatusRunning
	}
	if s.OpenCalls == nil {
		s.OpenCalls = map[string]uint64{}
	}
	s.OpenCalls[t.CallID] = e.Seq
	if IsTodoTool(t.Tool) {
		if p, ok := PlanOfTodos(strings.TrimPrefix(e.Actor, "executor:"), t.Args); ok {
			s.setPlan(p)
		}
	}
	s.addItem(Item{Seq: e.Seq, Kind: ItemTool, Tool: t.Tool, CallID: t.CallID, Args: firstNonEmpty(t.Summary, compactJSON(t.Args)), Status: "running"})
}

func applyToolResult(s *SessionState, e Event, p any) {
	r := p.(*ToolCompleted)
	delete(s.OpenCalls, r.CallID)
	if len(s.OpenCalls) == 0 {
		s.OpenCalls = nil
	}
	status := "ok"
	if r.IsError || r.Interrupted || r.Killed != "" || (r.ExitCode != nil && *r.ExitCode != 0) {
		status = "error"
		s.ToolErrors++
	}
	if r.Interrupted {
		status = "interrupted"
	}
	for i := len(s.Items) - 1; i >= 0; i-- {
		it := &s.Items[i]
		if it.Kind == ItemTool && it.CallID == r.CallID {
			it.Status, it.ExitCode, it.DurationMs = status, r.ExitCode, r.DurationMs
			it.Output, it.Artifact, it.Diff, it.ResultSeq = capText(r.Output), r.Artifact, capText(r.Diff), e.Seq
			return
		}
	}
}

// addItem appends an item, keeping between recentItems and twice that of the newest.
func (s *SessionState) addItem(it Item) {
	it.Text = capText(it.Text)
	s.ItemCount++
	s.Items = append(s.Items, it)
	if len(s.Items) >= 2*recentItems {
		s.Items = append(s.Items[:0:0], s.Items[len(s.Items)-recentItems:]...)
	}
}

// capText keeps about itemTextCap bytes of text: its head and its tail (a long output's end is
// what matters most: the exit message, the last error), cut on line or rune boundaries, with a
// line in between saying how much is left out (the event in the log holds all of it).
func capText(t string) string {
	if len(t) <= itemTextCap {
		return t
	}
	half := itemTextCap / 2
	head := t[:runeStart(t, half)]
	if i := strings.LastIndexByte(head, '\n'); i >= half/2 {
		head = head[:i+1]
	}
	from := runeStart(t, len(t)-half)
	if j := strings.IndexByte(t[from:], '\n'); j >= 0 && j < half/2 {
		from += j + 1
	}
	sep := "\n"
	if strings.HasSuffix(head, "\n") {
		sep = ""
	}
	return head + sep + fmt.Sprintf("… %d bytes left out here (the log holds all of it) …\n", from-len(head)) + t[from:]
}

// runeStart moves i back to the start of the UTF-8 sequence it falls in.
func runeStart(t string, i int) int {
	for i > 0 && i < len(t) && t[i]&0xC0 == 0x80 {
		i--
	}
	return i
}

// compactJSON renders raw JSON arguments on one line.
func compactJSON(raw json.RawMessage) string {
	return oneLine(string(raw))
}
