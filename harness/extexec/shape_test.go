package extexec

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/provider"
)

// bodyOf splits a request body as the endpoint does.
func bodyOf(t *testing.T, body string) callBody {
	t.Helper()
	d, err := readBody([]byte(body))
	if err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return d
}

// msgReq builds a Messages request body: system, tools (names) and messages as JSON.
func msgReq(system string, tools []string, maxTokens int, messages string) string {
	var ts []string
	for _, n := range tools {
		ts = append(ts, `{"name":"`+n+`","description":"d","input_schema":{"type":"object"}}`)
	}
	return `{"model":"m","max_tokens":` + strconv.Itoa(maxTokens) + `,"stream":true,"system":[{"type":"text","text":` + quote(system) + `}],"tools":[` +
		strings.Join(ts, ",") + `],"messages":` + messages + `}`
}

// The shapes below are those the real agents send (logged from Claude Code 2.1.330 and
// claude-agent-acp 0.101.0 against the scripted server): Claude Code puts <system-reminder> blocks
// before the prompt and after tool results; claude-agent-acp's title request has no tools and a
// naming system prompt; /compact sends the conversation with the summary instruction after the
// last tool results, the same tools and system prompt.
func TestPlaceTellsTheConversationFromSideCalls(t *testing.T) {
	l := &Log{recorded: map[string]bool{}, inTurn: true}
	l.Expect("make a file")
	tools := []string{"mcp__exo__bash", "mcp__exo__read_file"}
	remind := `{"type":"text","text":"<system-reminder>\nToday's date is 2026-11-25.\n</system-reminder>"}`
	prompt := `[{"role":"user","content":[` + remind + `,{"type":"text","text":"make a file"}]}]`
	answer := `{"role":"assistant","content":[{"type":"text","text":"Running."},{"type":"tool_use","id":"toolu_1","name":"mcp__exo__bash","input":{"command":"ls"}}]}`
	results := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x.txt"},` + remind + `]}`
	cases := []struct {
		name, body string
		main       bool
		purpose    string
	}{
		{"title", msgReq("You are naming a coding session. Write the title in the predominant language.", nil, 32000,
			`[{"role":"user","content":[{"type":"text","text":"<session>\nmake a file\n</session>\n\nWrite the title"}]}]`), false, harness.SideTitle},
		{"prompt", msgReq("You are Claude Code.", tools, 32000, prompt), true, ""},
		// For a model that is not Anthropic's, Claude Code adds a system message after the prompt.
		{"prompt then system", msgReq("You are Claude Code.", tools, 32000, strings.TrimSuffix(prompt, "]")+
			`,{"role":"system","content":[{"type":"text","text":"# Environment\nYou are powered by the model demo."}]}]`), true, ""},
		{"quota", msgReq("", nil, 1, `[{"role":"user","content":"quota"}]`), false, harness.SideQuota},
		{"results", msgReq("You are Claude Code.", tools, 32000, strings.TrimSuffix(prompt, "]")+","+answer+","+results+"]"), true, ""},
		{"compaction", msgReq("You are Claude Code.", tools, 32000, strings.TrimSuffix(prompt, "]")+","+answer+
			`,{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x.txt"},{"type":"text","text":"CRITICAL: Respond with TEXT ONLY. Your task is to create a detailed summary of the conversation so far."}]}]`),
			false, harness.SideCompaction},
		{"subagent", msgReq("You are an agent for Claude Code.", []string{"Bash", "Read"}, 32000,
			`[{"role":"user","content":"Find the failing test and report."}]`), false, harness.SideSubagent},
		{"subagent's results", msgReq("You are an agent for Claude Code.", []string{"Bash", "Read"}, 32000,
			`[{"role":"user","content":"Find it."},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_9","name":"Bash","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":"ok"}]}]`),
			false, harness.SideSubagent},
	}
	for _, c := range cases {
		pl := l.place(anthropicShape(bodyOf(t, c.body)))
		if pl.main != c.main || pl.purpose != c.purpose {
			t.Errorf("%s: placed %+v, want main=%v purpose %q", c.name, pl, c.main, c.purpose)
		}
		if c.name == "prompt" { // the answer to it called toolu_1
			l.turnMain, l.lastCalls = 1, map[string]bool{"toolu_1": true}
		}
	}
	// After Claude Code compacted the conversation in the middle of a turn, it carries the turn on
	// from the summary: that call is the conversation's; one without tools quoting it is not.
	continued := `[{"role":"user","content":[{"type":"text","text":"This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nSummary: x.txt made."}]}]`
	if !l.place(anthropicShape(bodyOf(t, msgReq("You are Claude Code.", tools, 32000, continued)))).main {
		t.Error("the conversation carried on after compaction was placed beside it")
	}
	if l.place(anthropicShape(bodyOf(t, msgReq("You are Claude Code.", nil, 32000, continued)))).main {
		t.Error("a call without tools quoting the continuation was placed on the conversation")
	}
	// A prompt the agent wraps in its own text counts for the turn's first call with tools.
	l.turnMain = 0
	wrapped := msgReq("s", tools, 100, `[{"role":"user","content":"<context>ws</context>\n\nmake a file"}]`)
	if !l.place(anthropicShape(bodyOf(t, wrapped))).main {
		t.Error("a wrapped prompt was not placed on the conversation")
	}
	if l.place(anthropicShape(bodyOf(t, msgReq("s", nil, 100, `[{"role":"user","content":"<context>ws</context>\n\nmake a file"}]`)))).main {
		t.Error("a wrapped prompt without tools (a side call quoting it) was placed on the conversation")
	}
}

func TestPlaceReadsResponsesRequests(t *testing.T) {
	l := &Log{recorded: map[string]bool{}, inTurn: true}
	l.Expect("make a file")
	head := `{"type":"message","role":"developer","content":[{"type":"input_text","text":"You are Codex."}]},` +
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>…</environment_context>"}]},` +
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"make a file"}]}`
	req := func(items string) string {
		return `{"model":"gpt-5.5","stream":true,"tools":[{"type":"function","name":"bash"}],"input":[` + items + `]}`
	}
	if !l.place(responsesShape(bodyOf(t, req(head)))).main {
		t.Fatal("the prompt was not placed on the conversation")
	}
	l.turnMain, l.lastCalls = 1, map[string]bool{"call_1": true}
	cont := head + `,{"type":"function_call","call_id":"call_1","name":"bash","arguments":"{}"},{"type":"function_call_output","call_id":"call_1","output":"ok"}`
	if !l.place(responsesShape(bodyOf(t, req(cont)))).main {
		t.Fatal("the tool results were not placed on the conversation")
	}
	side := cont + `,{"type":"message","role":"user","content":[{"type":"input_text","text":"Summarize the conversation so far."}]}`
	if pl := l.place(responsesShape(bodyOf(t, req(side)))); pl.main || pl.purpose != harness.SideCompaction {
		t.Fatalf("a summary request placed %+v", pl)
	}
}

// Through the endpoint: the conversation's calls are steps with model.completed, the side calls
// model.side; both count in the session's usage and cost, only the conversation's reach the
// prompt view, and exo's tools are recorded by exo's names.
func TestEndpointRecordsSideCallsBesideTheConversation(t *testing.T) {
	h, s, ep, _ := endpointFixture(t, `
prompts:
  - when: Write the title
    turns:
      - text: "A title"
  - turns:
      - text: "Running."
        tool_calls: [{name: mcp__exo__bash, input: {command: ls}}]
      - text: "Done."
`)
	post := func(body string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, ep.URL()+"/v1/messages", strings.NewReader(body))
		req.Header.Set("X-Api-Key", ep.Token())
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		// Read to the end: the handler has recorded the call by the time the answer ends.
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("status %d", res.StatusCode)
		}
	}
	tools := []string{"mcp__exo__bash"}
	post(msgReq("You are naming a coding session.", nil, 100, `[{"role":"user","content":"<session>hi</session> Write the title"}]`))
	post(msgReq("You are Claude Code.", tools, 100, `[{"role":"user","content":"hi"}]`))
	if err := ep.log.Flush(); err != nil {
		t.Fatal(err)
	}
	evs, _ := h.Events(s.ID, 0, 0)
	var id string
	for _, e := range evs {
		if p, _ := harness.Decode(e); e.Type == harness.TypeModelCompleted {
			c := p.(*harness.ModelCompleted)
			if len(c.ToolCalls) != 1 || c.ToolCalls[0].Name != "bash" {
				t.Fatalf("model.completed records the agent's tool name: %+v", c.ToolCalls)
			}
			id = c.ToolCalls[0].ID
		}
	}
	post(msgReq("You are Claude Code.", tools, 100, `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"`+id+
		`","name":"mcp__exo__bash","input":{"command":"ls"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+id+`","content":"x"}]}]`))
	ep.log.Flush()
	evs, _ = h.Events(s.ID, 0, 0)
	var typs []string
	for _, e := range evs {
		typs = append(typs, e.Type)
	}
	want := "session.created model.side step.started model.requested model.completed step.started model.requested model.completed"
	if strings.Join(typs, " ") != want {
		t.Fatalf("events %v\nwant %s", typs, want)
	}
	p, _ := harness.Decode(evs[1])
	side := p.(*harness.ModelSide)
	if side.Purpose != harness.SideTitle || side.Text != "A title" || side.Usage.Input == 0 || side.Cost == 0 {
		t.Fatalf("model.side %+v", side)
	}
	st, _ := h.State(s.ID)
	if st.SideCalls != 1 || st.ModelCalls != 2 || st.Steps != 2 {
		t.Fatalf("state %+v", st)
	}
	var sum float64
	for _, e := range evs {
		switch p, _ := harness.Decode(e); c := p.(type) {
		case *harness.ModelCompleted:
			sum += c.Cost
		case *harness.ModelSide:
			sum += c.Cost
		}
	}
	if st.Cost != sum || ep.log.Sums().Calls != 2 || ep.log.Sums().SideCalls != 1 || ep.log.Sums().Cost != sum {
		t.Fatalf("cost: state %v, events %v, sums %+v", st.Cost, sum, ep.log.Sums())
	}
	x := executor.New(h, executor.Options{})
	v, err := x.ViewOf(s.Branch, "claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range v.Messages {
		if strings.Contains(m.Text, "A title") {
			t.Fatalf("the title reached the prompt view: %+v", v.Messages)
		}
		for _, c := range m.ToolCalls {
			if c.Name != "bash" {
				t.Fatalf("the prompt view names exo's tool %q", c.Name)
			}
		}
	}
	if n := len(v.Messages); n != 3 || v.Messages[0].Role != provider.RoleAssistant || v.Messages[n-1].Text != "Done." {
		t.Fatalf("prompt view %+v", v.Messages)
	}
}
