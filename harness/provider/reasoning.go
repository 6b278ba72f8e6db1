package provider

import "strings"

// stampOrigin records where the parts came from.
func stampOrigin(parts []Reasoning, origin string) {
	for i := range parts {
		parts[i].Origin = origin
	}
}

// reasoningAcc is one reasoning part being streamed.
type reasoningAcc struct {
	part    Reasoning
	text    strings.Builder
	summary []*strings.Builder
}

// startReasoning opens a reasoning part under key (the provider's block,
// item or detail key); an open part under the same key is kept.
func (a *accumulator) startReasoning(key int64, r Reasoning) *reasoningAcc {
	if i, ok := a.byReason[key]; ok {
		return a.reasons[i]
	}
	if a.byReason == nil {
		a.byReason = map[int64]int{}
	}
	acc := &reasoningAcc{part: r}
	acc.text.WriteString(r.Text)
	acc.part.Text = ""
	a.byReason[key] = len(a.reasons)
	a.reasons = append(a.reasons, acc)
	return acc
}

// reasoning returns the part under key, or nil.
func (a *accumulator) reasoning(key int64) *reasoningAcc {
	if i, ok := a.byReason[key]; ok {
		return a.reasons[i]
	}
	return nil
}

// addReasoningText appends readable reasoning to the part under key and
// shows it.
func (a *accumulator) addReasoningText(r *reasoningAcc, s string) {
	if s == "" {
		return
	}
	if a.shown && r.text.Len() == 0 && len(r.summary) == 0 {
		a.emit(Delta{Kind: DeltaReasoning, Text: "\n\n"})
	}
	r.text.WriteString(s)
	a.shown = true
	a.emit(Delta{Kind: DeltaReasoning, Text: s})
}

// addSummary appends to summary part i of a Responses reasoning item.
func (a *accumulator) addSummary(r *reasoningAcc, i int, s string) {
	if i < 0 || i > 1<<10 {
		return
	}
	for len(r.summary) <= i {
		if a.shown {
			a.emit(Delta{Kind: DeltaReasoning, Text: "\n\n"})
		}
		r.summary = append(r.summary, &strings.Builder{})
	}
	if s == "" {
		return
	}
	r.summary[i].WriteString(s)
	a.shown = true
	a.emit(Delta{Kind: DeltaReasoning, Text: s})
}

// finish returns the completed part.
func (r *reasoningAcc) finish() Reasoning {
	p := r.part
	p.Text = r.text.String()
	for _, b := range r.summary {
		p.Summary = append(p.Summary, b.String())
	}
	return p
}
