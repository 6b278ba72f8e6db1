package acp

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// TestRecordedUpdatesFixture reads what claude-agent-acp 0.101.0 really sent in exo's tests
// (testdata/claude_acp_updates.jsonl, as the SDK decoded it) as exo records it.
func TestRecordedUpdatesFixture(t *testing.T) {
	fh, err := os.Open(filepath.Join("testdata", "claude_acp_updates.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var sn sdk.SessionNotification
		if err := json.Unmarshal(sc.Bytes(), &sn); err != nil {
			t.Fatal(err)
		}
		switch u := sn.Update; {
		case u.UsageUpdate != nil:
			r := usageRecord("acp:x", u.UsageUpdate)
			if r.Window != 200000 || r.Context == 0 || r.Cost <= 0 || r.Currency != "USD" {
				t.Errorf("usage %+v", r)
			}
			n++
		case u.AvailableCommandsUpdate != nil:
			r := commandsRecord("acp:x", u.AvailableCommandsUpdate.AvailableCommands)
			if len(r.Commands) < 10 || r.Commands[0].Name != "deep-research" || r.Commands[0].Description == "" {
				t.Errorf("commands %+v", r)
			}
			n++
		case u.SessionInfoUpdate != nil: // not recorded (the title the adapter's model gave)
			n++
		}
	}
	if n != 3 {
		t.Fatalf("%d updates read", n)
	}
}
