package executor

import (
	"fmt"

	"exo/harness"
	"exo/harness/provider"
)

// pruneMinTokens is the size under which a tool output is not worth replacing by a placeholder.
const pruneMinTokens = 48

// msgMeta records where a prompt-view message came from, for compaction.
type msgMeta struct {
	seq      uint64 // the event that produced the message
	tokens   int
	tool     string // for tool results
	artifact string
	pruned   bool
}

// compactState is the part of the view that compaction, budgets and wake-ups read.
type compactState struct {
	toolTokens   int       // tokens of tool results in the view
	turns        [2]uint64 // seqs of the last two invocation.received, newest last
	prunedTo     uint64
	summarizedTo uint64
	pruneIdx     int    // messages before this index were already scanned by a prune
	lastRequest  uint64 // seq of the last model.requested
	lastNote     uint64 // seq of the last background completion (task or subagent)
	spent        spend
	warned       map[string]float64 // budget → limit it was warned at
}

// spend is what a history has cost so far.
type spend struct {
	Tokens int
	Cost   float64
}

// applyLongRunning folds the events of compaction, budgets, wake-ups and subagents; it
// reports true when the event needs nothing else.
func (v *View) applyLongRunning(e harness.Event, p any) bool {
	switch p := p.(type) {
	case *harness.CompactionApplied:
		v.applyCompaction(p)
		return true
	case *harness.ModelRequested:
		v.comp.lastRequest = e.Seq
	case *harness.ModelCompleted:
		v.comp.spent.Tokens += p.Usage.Input + p.Usage.Output
		v.comp.spent.Cost += p.Cost
	case *harness.ModelSide: // an agent's call beside the conversation: spent, never a message
		v.comp.spent.Tokens += p.Usage.Input + p.Usage.Output
		v.comp.spent.Cost += p.Cost
		return true
	case *harness.CompactionCost:
		v.comp.spent.Tokens += p.Usage.Input + p.Usage.Output
		v.comp.spent.Cost += p.Cost
		return true
	case *harness.TaskCompleted:
		v.comp.lastNote = e.Seq
	case *harness.BudgetWarning:
		if v.comp.warned == nil {
			v.comp.warned = map[string]float64{}
		}
		v.comp.warned[p.Budget] = p.Limit
		return true
	case *harness.SubagentStarted:
		v.reset()
		return true
	case *harness.SubagentCompleted:
		v.comp.spent.Tokens += p.Tokens
		v.comp.spent.Cost += p.Cost
		if !p.Delivered {
			v.comp.lastNote = e.Seq
			v.userNote(subagentNote(p))
		}
		return true
	}
	return false
}

// reset empties the view: a subagent's context starts at its subagent.started event.
func (v *View) reset() {
	*v = View{Branch: v.Branch, Head: v.Head, cur: v.cur, model: v.model, Always: map[string]bool{}, pending: map[string]bool{}}
}

// turnStarted remembers the start of a user turn.
func (v *View) turnStarted(seq uint64) {
	v.comp.turns[0], v.comp.turns[1] = v.comp.turns[1], seq
}

// keepFrom is the first seq compaction must keep whole (the older of the last two user turns);
// 0 means there is nothing before it to compact.
func (v *View) keepFrom() uint64 { return v.comp.turns[0] }

// applyCompaction folds a compaction.applied event.
func (v *View) applyCompaction(p *harness.CompactionApplied) {
	switch p.Kind {
	case CompactPrune:
		v.applyPrune(p.FromSeq, p.ToSeq)
	case CompactSummarize:
		v.applySummary(p)
	}
}

// prunable reports whether message i is a tool output worth replacing.
func (v *View) prunable(i int) bool {
	return v.Messages[i].Role == provider.RoleTool && !v.meta[i].pruned && v.meta[i].tokens > pruneMinTokens
}

// prunableTokens sums the tokens a prune up to seq to would take out of the view.
func (v *View) prunableTokens(to uint64) int {
	n := 0
	for i := v.comp.pruneIdx; i < len(v.Messages) && v.meta[i].seq <= to; i++ {
		if v.prunable(i) {
			n += v.meta[i].tokens
		}
	}
	return n
}

// applyPrune replaces the tool outputs of events from..to by one-line placeholders.
func (v *View) applyPrune(from, to uint64) {
	i := v.comp.pruneIdx
	for ; i < len(v.Messages) && v.meta[i].seq <= to; i++ {
		if v.meta[i].seq < from || !v.prunable(i) {
			continue
		}
		md := &v.meta[i]
		text := fmt.Sprintf("[pruned from the prompt to save context: %d tokens of %s output; the full result is event @%d in the log%s]",
			md.tokens, md.tool, md.seq, artifactNote(md.artifact))
		n := v.count(text)
		v.Tokens += n - md.tokens
		v.comp.toolTokens += n - md.tokens
		v.Messages[i].Text, md.tokens, md.pruned = text, n, true
	}
	v.comp.pruneIdx = i
	v.comp.prunedTo = max(v.comp.prunedTo, to)
}

func artifactNote(a string) string {
	if a == "" {
		return ""
	}
	return " (artifact " + a + ")"
}

// prefixLen is how many leading messages came from events up to seq to, never ending on an
// assistant message whose tool results come after the cut (a call and its results stay together).
func (v *View) prefixLen(to uint64) int {
	k := 0
	for k < len(v.Messages) && v.meta[k].seq <= to {
		k++
	}
	for k > 0 && len(v.Messages[k-1].ToolCalls) > 0 {
		k--
	}
	return k
}

// summaryText is the message a summary of events from..to stands in the prompt as.
func summaryText(from, to uint64, summary string) string {
	return fmt.Sprintf("[summary of the conversation so far (events @%d..@%d, compacted; the full history stays in exo's log)]\n%s", from, to, summary)
}

// replacedTokens counts the tokens of the first k messages (those a summary would replace).
func (v *View) replacedTokens(k int) int {
	n := 0
	for i := 0; i < k; i++ {
		n += v.meta[i].tokens
	}
	return n
}

// applySummary replaces the messages of events up to p.ToSeq by the summary, marked as a cache
// breakpoint (the stable start of the prompt until the next summary).
func (v *View) applySummary(p *harness.CompactionApplied) {
	k := v.prefixLen(p.ToSeq)
	removed, removedTool := 0, 0
	for i := 0; i < k; i++ {
		removed += v.meta[i].tokens
		if v.Messages[i].Role == provider.RoleTool {
			removedTool += v.meta[i].tokens
		}
	}
	text := summaryText(p.FromSeq, p.ToSeq, p.Summary)
	n := v.count(text)
	msgs := make([]provider.Message, 0, len(v.Messages)-k+1)
	msgs = append(msgs, provider.Message{Role: provider.RoleUser, Text: text, CacheBreakpoint: true})
	v.Messages = append(msgs, v.Messages[k:]...)
	meta := make([]msgMeta, 0, len(v.meta)-k+1)
	meta = append(meta, msgMeta{seq: p.ToSeq, tokens: n})
	v.meta = append(meta, v.meta[k:]...)
	v.Tokens += n - removed
	v.comp.toolTokens -= removedTool
	v.comp.pruneIdx = max(v.comp.pruneIdx-k, 0) + 1
	v.comp.summarizedTo = p.ToSeq
	v.comp.prunedTo = max(v.comp.prunedTo, p.ToSeq)
}

// subagentNote is how a child's report reaches the parent's prompt when nobody waited for it.
func subagentNote(p *harness.SubagentCompleted) string {
	if p.Failure != "" {
		return fmt.Sprintf("[subagent %s failed: %s]\n%s", p.Handle, p.Failure, p.Response)
	}
	return fmt.Sprintf("[subagent %s finished; its report:]\n%s", p.Handle, p.Response)
}
