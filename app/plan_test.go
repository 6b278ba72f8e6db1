package app

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/harness"
	"exo/harness/api"
)

// TestPlanShowsAboveThePromptAndUpdatesLive: a to-do call folded from the watch stream puts the
// plan above the prompt at once, in the wide and the narrow layout, within the terminal's size;
// the next call updates it, and when every step is done and no turn runs it goes.
func TestPlanShowsAboveThePromptAndUpdatesLive(t *testing.T) {
	m := newTestModel(t)
	id := m.current()
	todo := func(args string) {
		st := m.state
		data, _ := json.Marshal(api.ToolStarted{CallID: "t" + string(rune('a'+st.Head)), Tool: api.ToolTodoWrite, Args: json.RawMessage(args)})
		e := api.Event{Branch: st.Branch, Seq: st.Head + 1, Type: api.TypeToolStarted, Actor: "executor:default", Data: data}
		m.Update(noticesMsg{[]harness.Notice{{Session: id, Events: []api.Event{e}}}})
	}
	for _, sz := range [][2]int{{120, 40}, {60, 20}} {
		m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		if strings.Contains(ansi.Strip(m.render()), "╭─Plan") {
			t.Fatalf("%dx%d: a plan shows before any", sz[0], sz[1])
		}
		todo(`{"todos":[{"content":"profile the slow path","status":"completed"},{"content":"cache the lookups","status":"in_progress"},{"content":"run the benchmarks","status":"pending"}]}`)
		screen := ansi.Strip(m.render())
		wants := []string{"╭─Plan", "1/3 done", "▸ cache the lookups"}
		if sz[0] >= 100 { // the narrow layout gives the plan a third of the conversation's rows
			wants = append(wants, "✓ profile the slow path", "○ run the benchmarks")
		}
		for _, want := range wants {
			if !strings.Contains(screen, want) {
				t.Fatalf("%dx%d: %q missing:\n%s", sz[0], sz[1], want, screen)
			}
		}
		if lines := strings.Split(screen, "\n"); len(lines) != sz[1] {
			t.Fatalf("%dx%d: %d lines", sz[0], sz[1], len(lines))
		}
		planRow, inputRow := -1, -1
		for i, l := range strings.Split(screen, "\n") {
			if strings.Contains(l, "╭─Plan") {
				planRow = i
			}
			if strings.Contains(l, "▸ cache the lookups") && planRow < 0 {
				t.Fatalf("the step shows outside the plan:\n%s", screen)
			}
			if i > planRow && planRow >= 0 && inputRow < 0 && strings.HasPrefix(l, "╭") && !strings.Contains(l, "Plan") {
				inputRow = i
			}
		}
		if planRow < 0 || inputRow != planRow+m.lay.plan.h || m.lay.plan.h < 3 {
			t.Fatalf("%dx%d: plan at %d, the next box at %d:\n%s", sz[0], sz[1], planRow, inputRow, screen)
		}
		todo(`{"todos":[{"content":"profile the slow path","status":"completed"},{"content":"cache the lookups","status":"completed"},{"content":"run the benchmarks","status":"in_progress"}]}`)
		if screen := ansi.Strip(m.render()); !strings.Contains(screen, "2/3 done") || !strings.Contains(screen, "▸ run the benchmarks") {
			t.Fatalf("%dx%d: the plan did not update:\n%s", sz[0], sz[1], screen)
		}
		todo(`{"todos":[{"content":"profile the slow path","status":"completed"},{"content":"cache the lookups","status":"completed"},{"content":"run the benchmarks","status":"completed"}]}`)
		if screen := ansi.Strip(m.render()); strings.Contains(screen, "╭─Plan") {
			t.Fatalf("%dx%d: a finished plan stays while no turn runs:\n%s", sz[0], sz[1], screen)
		}
	}
}
