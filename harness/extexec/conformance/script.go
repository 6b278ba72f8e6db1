package conformance

import (
	"strings"

	"exo/harness/extexec/attacktest"
	"exo/harness/extexec/modeltest"
)

// The prompts of the suite, each a "when" of the script (no one a substring of another's).
const (
	promptHello    = "say hello"
	promptFile     = "make a file"
	promptAsk      = "ask first"
	promptLong     = "run long"
	promptStream   = "stream slowly"
	promptSlow     = "slow answer"
	promptKeep     = "keep this"
	promptFail     = "fail now"
	promptThink    = "think first"
	promptThinkKey = "think secretly"
	promptBudget   = "spend the budget"
	promptRemember = "remember the word"
	promptWord     = "what word"
	promptProbe    = "probe exo's home"
)

// The answers the script gives that behaviours look for.
const (
	answerHello = "Hello."
	answerFile  = "Done: x.txt holds hi."
	answerThink = "Thought it over."
)

// script is what the adapter's model server plays for every behaviour: one entry a prompt,
// exo's bash called by the adapter's name for it, the secrets' and the probes' turns built from
// what the behaviours seal and attack.
func script(a *Adapter, key string, probes []attacktest.Probe) *modeltest.Script {
	bash := func(cmd string) modeltest.Call {
		return modeltest.Call{Name: a.Bash, Input: map[string]any{"command": cmd}}
	}
	var probeTurns []modeltest.Turn
	for _, p := range probes {
		in := map[string]any{a.Shell.Arg: p.Command}
		for k, v := range a.Shell.Extra {
			in[k] = v
		}
		probeTurns = append(probeTurns, modeltest.Turn{ToolCalls: []modeltest.Call{{Name: a.Shell.Name, Input: in}}})
	}
	probeTurns = append(probeTurns, modeltest.Turn{Text: "Probed."})
	return &modeltest.Script{Prompts: []modeltest.Prompt{
		{When: promptFile, Turns: []modeltest.Turn{
			{Text: "Running a command.", ToolCalls: []modeltest.Call{bash("echo hi > x.txt && cat x.txt")}},
			{Text: answerFile},
		}},
		{When: promptAsk, Turns: []modeltest.Turn{
			{Text: "Asking.", ToolCalls: []modeltest.Call{bash("echo asked > asked.txt")}},
			{Text: "Asked."},
		}},
		{When: promptLong, Turns: []modeltest.Turn{{ToolCalls: []modeltest.Call{bash("sleep 120")}}, {Text: "Slept."}}},
		{When: promptStream, Turns: []modeltest.Turn{{Text: strings.Repeat("a slow answer ", 200), Chunk: 4, DelayMs: 20}}},
		{When: promptSlow, Turns: []modeltest.Turn{{Hang: true}}},
		{When: promptKeep, Turns: []modeltest.Turn{
			{Text: "Reading it.", ToolCalls: []modeltest.Call{bash("cat notes.txt")}},
			{Text: "You said " + pasted + " and the file says " + pasted + ".", Chunk: 5},
		}},
		{When: promptFail, Turns: []modeltest.Turn{{Status: 401, Error: "invalid key " + key + " (also " + pasted + ")"}}},
		{When: promptThink, Turns: []modeltest.Turn{{Thinking: attacktest.ThinkingText, Text: answerThink}}},
		{When: promptThinkKey, Turns: []modeltest.Turn{{Thinking: "The key is " + key + "; keep it quiet.", Text: "Not telling."}}},
		{When: promptBudget, Turns: []modeltest.Turn{
			{Text: "First step.", InputTokens: 900, OutputTokens: 10, ToolCalls: []modeltest.Call{bash("echo one > b1.txt")}},
			{Text: "Second step.", InputTokens: 900, OutputTokens: 10, ToolCalls: []modeltest.Call{bash("echo two > b2.txt")}},
			{Text: "Finished within the budget."},
		}},
		{When: promptRemember, Turns: []modeltest.Turn{{Text: "I will remember it."}}},
		{When: promptWord, Turns: []modeltest.Turn{{Text: "You told me a word."}}},
		{When: promptProbe, Turns: probeTurns},
		// Agents' side requests (a session's title) quote the prompt before this text.
		{When: "Write the title", Turns: []modeltest.Turn{{Text: "A title", InputTokens: 1, OutputTokens: 1}}},
		{When: promptHello, Turns: []modeltest.Turn{{Text: answerHello}}},
		{Turns: []modeltest.Turn{{Text: answerHello}}},
	}}
}
