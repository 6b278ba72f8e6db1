package codex

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/extexec"
	"exo/harness/extexec/exectest"
)

// TestNotificationsBesideTheConversation runs real Codex turns that make a plan, search the web
// (a web_search_call the scripted server sends) and patch a file: the plan, the turn's diff,
// Codex's usage, the web search and its configuration warning become events.
func TestNotificationsBesideTheConversation(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{NativeTools: true})
	for _, p := range []string{"make a plan please", "search the web please", "native patch please"} {
		res, err := x.Prompt(context.Background(), f.s.ID, p, "test")
		okResult(t, res, err)
	}
	evs := f.events(t, f.s.ID)
	plans := exectest.Payloads[harness.AgentPlan](t, evs, harness.TypeAgentPlan)
	if len(plans) != 1 || plans[0].Explanation != "Three steps." || len(plans[0].Steps) != 3 || plans[0].Steps[1].Status != "in_progress" {
		t.Fatalf("agent.plan %+v", plans)
	}
	diffs := exectest.Payloads[harness.AgentDiff](t, evs, harness.TypeAgentDiff)
	if len(diffs) != 1 || strings.Join(diffs[0].Files, " ") != "y.txt" || !strings.Contains(diffs[0].Diff, "+hello from a patch") {
		t.Fatalf("agent.diff (Codex repeats it; recorded once) %+v", diffs)
	}
	us := exectest.Payloads[harness.AgentUsage](t, evs, harness.TypeAgentUsage)
	if len(us) != 3 || us[2].Window == 0 || us[2].Input <= us[0].Input || us[2].Context == 0 {
		t.Fatalf("agent.usage, one per turn, growing: %+v", us)
	}
	var search *harness.ToolCompleted
	for _, c := range exectest.Payloads[harness.ToolCompleted](t, evs, harness.TypeToolCompleted) {
		if c.Tool == "web_search" {
			search = c
		}
	}
	if search == nil || search.Output != "searched: exo harness" {
		t.Fatalf("no web search recorded: %s", exectest.Types(evs))
	}
	if _, err := exec.LookPath("bwrap"); err != nil { // Codex warns that it uses its bundled bubblewrap
		ws := exectest.Payloads[harness.AgentWarning](t, evs, harness.TypeAgentWarning)
		if len(ws) != 1 || !strings.Contains(ws[0].Summary, "bubblewrap") {
			t.Fatalf("agent.warning %+v", ws)
		}
	}
	st, _ := f.h.State(f.s.ID)
	var plan, diff string
	for _, it := range st.Items {
		if it.Kind == harness.ItemPlan {
			plan = it.Text
		}
		if it.Diff != "" && it.Kind == harness.ItemNotice {
			diff = it.Diff
		}
	}
	if plan != "Three steps.\n[x] Read the code\n[~] Fix the bug\n[ ] Run the tests" || !strings.Contains(diff, "y.txt") || st.AgentWindow == 0 {
		t.Fatalf("state: plan %q, diff %q, window %d", plan, diff, st.AgentWindow)
	}
}

// TestRecordedNotificationsFixture reads what codex app-server 0.169.0 really sent
// (testdata/notifications.jsonl, captured from the runs above) and the MCP tool call item its
// schema describes, as exo records them.
func TestRecordedNotificationsFixture(t *testing.T) {
	fh, err := os.Open(filepath.Join("testdata", "notifications.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var n extexec.Notification
		if err := json.Unmarshal(sc.Bytes(), &n); err != nil {
			t.Fatal(err)
		}
		ok := false
		switch n.Method {
		case "turn/plan/updated":
			var p harness.AgentPlan
			p, ok = planRecord(Name, n.Params)
			ok = ok && len(p.Steps) == 3 && p.Steps[1].Status == "in_progress"
		case "turn/diff/updated":
			var d harness.AgentDiff
			d, ok = diffRecord(Name, n.Params)
			ok = ok && len(d.Files) == 1
		case "thread/tokenUsage/updated":
			var u harness.AgentUsage
			u, ok = usageRecord(Name, n.Params)
			ok = ok && u.Window == 258400 && u.Input > 0 && u.Context > 0
		case "configWarning":
			var w harness.AgentWarning
			w, ok = warningRecord(Name, n.Params)
			ok = ok && w.Details == ""
		case "item/completed":
			var p struct {
				Item agentItem `json:"item"`
			}
			json.Unmarshal(n.Params, &p)
			name, args, out, failed := p.Item.call()
			ok = name == "web_search" && string(args) == `{"query":"exo harness"}` && out == "searched: exo harness" && !failed
		}
		if !ok {
			t.Errorf("%s not read as exo records it: %s", n.Method, sc.Bytes())
		}
		seen[n.Method] = true
	}
	if len(seen) != 5 {
		t.Fatalf("fixture methods %v", seen)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "mcp_tool_call.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Params struct {
			Item agentItem `json:"item"`
		} `json:"params"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	name, args, out, failed := m.Params.Item.call()
	if name != "mcp:docs/lookup" || string(args) != `{"q": "exo"}` || out != "exo is a harness" || failed {
		t.Fatalf("mcpToolCall read as %s %s %q %v", name, args, out, failed)
	}
}
