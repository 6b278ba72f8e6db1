package harness

import (
	"math"
	"strings"
	"testing"

	"exo/harness/provider"
)

func TestRegisterFillsPricesAndReasoningDefaults(t *testing.T) {
	h := openTest(t, Options{})
	claude, err := h.RegisterModel(ModelSpec{Name: "c", Provider: "anthropic", ModelID: "claude-sonnet-4-5-20250929"})
	if err != nil {
		t.Fatal(err)
	}
	if claude.PriceCacheWrite != 3.75 || claude.PriceCachedIn != 0.30 || claude.ThinkingBudget != provider.DefaultThinkingBudget {
		t.Errorf("claude = %+v", claude)
	}
	off, _ := h.RegisterModel(ModelSpec{Name: "c-off", Provider: "anthropic", ModelID: "claude-sonnet-4-5", ThinkingBudget: ThinkingOff})
	if effort, budget := off.Reasoning(); budget != 0 || effort != "" {
		t.Errorf("thinking off: effort %q budget %d", effort, budget)
	}
	gpt, _ := h.RegisterModel(ModelSpec{Name: "g", Provider: "openai", ModelID: "gpt-5"})
	if effort, budget := gpt.Reasoning(); effort != "medium" || budget != 0 {
		t.Errorf("gpt-5: effort %q budget %d", effort, budget)
	}
	plain, _ := h.RegisterModel(ModelSpec{Name: "p", Provider: "openai", ModelID: "gpt-4.1"})
	if effort, budget := plain.Reasoning(); effort != "" || budget != 0 {
		t.Errorf("gpt-4.1: effort %q budget %d", effort, budget)
	}
	mine, _ := h.RegisterModel(ModelSpec{Name: "m", Provider: "openai", ModelID: "o4-mini", ReasoningEffort: "high"})
	if effort, _ := mine.Reasoning(); effort != "high" {
		t.Errorf("explicit effort lost: %q", effort)
	}
}

func TestCostCountsCacheWritesAndPrefersTheProvidersFigure(t *testing.T) {
	h := openTest(t, Options{})
	m, _ := h.RegisterModel(ModelSpec{Name: "c", Provider: "anthropic", ModelID: "claude-sonnet-4-5"})
	// A turn that writes the cache: 2,000 plain input + 8,000 written, 500 out.
	u := provider.Usage{Input: 10_000, CacheWrite: 8_000, Output: 500}
	cost, fromProvider := ModelCostOf(m, u)
	want := (2_000*3.00 + 8_000*3.75 + 500*15.00) / 1e6
	if fromProvider || math.Abs(cost-want) > 1e-12 {
		t.Errorf("cost = %v (provider %v), want %v", cost, fromProvider, want)
	}
	// Registered before cache-write prices were kept: the catalog's price still applies.
	old := m
	old.PriceCacheWrite = 0
	if c := ModelCost(old, u); math.Abs(c-want) > 1e-12 {
		t.Errorf("old registration cost = %v, want %v", c, want)
	}
	u.Cost = 0.0123
	if cost, fromProvider := ModelCostOf(m, u); !fromProvider || cost != 0.0123 {
		t.Errorf("provider cost ignored: %v %v", cost, fromProvider)
	}
}

func TestReasoningIsProjectedAndSummarised(t *testing.T) {
	h := openTest(t, Options{})
	s, err := h.NewSession(NewSessionOptions{Name: "r"})
	if err != nil {
		t.Fatal(err)
	}
	c := ModelCompleted{Model: "claude", Text: "It is 40 C.", Usage: Usage{Input: 10, Output: 5, Reasoning: 3, CacheWrite: 4},
		Reasoning: []Reasoning{{Format: provider.ReasoningAnthropic, Type: "thinking", Text: "The user wants\nthe weather.", Signature: "EtYD"},
			{Format: provider.ReasoningAnthropic, Type: "redacted_thinking", Data: "EmwK"}}}
	if _, err := h.Append(s.ID, MustRecord(TypeModelCompleted, ExecutorActor("default"), c)); err != nil {
		t.Fatal(err)
	}
	st, _ := h.BranchState(s.Branch)
	if len(st.Items) < 2 || st.Items[len(st.Items)-2].Kind != ItemThinking || st.Items[len(st.Items)-2].Text != "The user wants\nthe weather." {
		t.Fatalf("items = %+v", st.Items)
	}
	wantUsage := Usage{Input: 10, Output: 5, Reasoning: 3, CacheWrite: 4}
	if st.Usage != wantUsage {
		t.Errorf("usage = %+v", st.Usage)
	}
	evs, _ := h.BranchEvents(s.Branch, 0, 0)
	sum := Summary(evs[len(evs)-1])
	if !strings.HasPrefix(sum, "thought: The user wants the weather. It is 40 C.") {
		t.Errorf("summary = %q", sum)
	}
	var back ModelCompleted
	if p, err := Decode(evs[len(evs)-1]); err == nil {
		back = *p.(*ModelCompleted)
	}
	if back.Reasoning[0].Signature != "EtYD" || back.Reasoning[1].Data != "EmwK" {
		t.Errorf("opaque reasoning not kept: %+v", back.Reasoning)
	}
}
