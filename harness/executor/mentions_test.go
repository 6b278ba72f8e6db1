package executor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/provider/providertest"
	"exo/sandbox"
)

// TestMentionAttachesFileToRequest sends "explain @main.go" to a local Messages server: the
// request body holds the file's content (and a sealed secret in it only as ‹secret:NAME›),
// and the invocation event records the attachment.
func TestMentionAttachesFileToRequest(t *testing.T) {
	const secret = "sk-live-mention-7f3e2a9c1b5d4e6f"
	answer, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "providers", "anthropic-2-answer.sse"))
	srv := providertest.NewReplyServer(providertest.Reply{Body: string(answer)})
	defer srv.Close()
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	h.SetSecret("deploy", []byte(secret))
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "c", Provider: "anthropic", ModelID: "claude-sonnet-4-5", BaseURL: srv.URL}); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\n// MENTIONED-7c1d\nvar key = \""+secret+"\"\n"), 0o644)
	s, err := h.NewSession(harness.NewSessionOptions{Name: "t", Workspace: ws, Model: "c"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(h, Options{Headless: true, AutoApprove: true}).Prompt(context.Background(), s.ID, "explain @main.go, please", "run"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request")
	}
	body := string(reqs[0].Body)
	if !strings.Contains(body, "MENTIONED-7c1d") || !strings.Contains(body, `attached_file path=\"main.go\"`) {
		t.Fatalf("the request does not carry main.go: %s", body)
	}
	if strings.Contains(body, secret) || !strings.Contains(body, "‹secret:deploy›") {
		t.Fatalf("the attached file's secret was not redacted in the request: %s", body)
	}
	evs, _ := h.BranchEvents(s.Branch, 0, 0)
	for _, e := range evs {
		if strings.Contains(string(e.Data), secret) {
			t.Fatalf("event %d holds the secret", e.Seq)
		}
		if e.Type == harness.TypeInvocationReceived {
			var inv harness.InvocationReceived
			json.Unmarshal(e.Data, &inv)
			if len(inv.Attachments) != 1 || inv.Attachments[0].Path != "main.go" || !strings.Contains(inv.Attachments[0].Content, "MENTIONED-7c1d") {
				t.Fatalf("invocation %+v", inv)
			}
		}
	}
	st, _ := h.State(s.ID)
	if it := st.Items[0]; len(it.Attached) != 1 || !strings.HasPrefix(it.Attached[0], "main.go (") {
		t.Fatalf("conversation item %+v", it)
	}
}
