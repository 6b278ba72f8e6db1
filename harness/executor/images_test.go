package executor

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/provider/providertest"
	"exo/sandbox"
)

// imageHarness opens a harness with a workspace holding shot.png and returns the PNG's bytes.
func imageHarness(t *testing.T) (*harness.Harness, string, []byte) {
	t.Helper()
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, 40, 30)))
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "shot.png"), b.Bytes(), 0o644)
	return h, ws, b.Bytes()
}

// TestMentionedImageReachesTheModel sends "what is in @shot.png" to a local Messages server
// twice: each request carries the image as a base64 image block of the file's bytes (the
// second from the log), the event only the artifact's id, and the conversation says so.
func TestMentionedImageReachesTheModel(t *testing.T) {
	h, ws, pic := imageHarness(t)
	answer, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "providers", "anthropic-2-answer.sse"))
	srv := providertest.NewReplyServer(providertest.Reply{Body: string(answer)})
	defer srv.Close()
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "c", Provider: "anthropic", ModelID: "claude-sonnet-4-5", BaseURL: srv.URL}); err != nil {
		t.Fatal(err)
	}
	s, _ := h.NewSession(harness.NewSessionOptions{Name: "t", Workspace: ws, Model: "c"})
	x := New(h, Options{Headless: true, AutoApprove: true})
	if _, err := x.Prompt(context.Background(), s.ID, "what is in @shot.png?", "run"); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Prompt(context.Background(), s.ID, "and now?", "run"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	block := `{"source":{"data":"` + base64.StdEncoding.EncodeToString(pic) + `","media_type":"image/png","type":"base64"},"type":"image"}`
	for i, r := range reqs {
		if !strings.Contains(string(r.Body), block) {
			t.Fatalf("request %d does not carry the image block: %.600s", i, r.Body)
		}
	}
	evs, _ := h.BranchEvents(s.Branch, 0, 0)
	enc := base64.StdEncoding.EncodeToString(pic)
	for _, e := range evs {
		if bytes.Contains(e.Data, pic[8:32]) || strings.Contains(string(e.Data), enc[:40]) {
			t.Fatalf("event %d (%s) holds the image's bytes", e.Seq, e.Type)
		}
	}
	st, _ := h.State(s.ID)
	if it := st.Items[0]; len(it.Attached) != 1 || it.Attached[0] != fmt.Sprintf("image shot.png (PNG 40×30, %d B)", len(pic)) {
		t.Fatalf("conversation item %+v", it.Attached)
	}
}

// TestImageRefusedByTextModel mentions an image with the scripted model, which takes none:
// the prompt is refused with a note naming the image, nothing is recorded or sent.
func TestImageRefusedByTextModel(t *testing.T) {
	h, ws, _ := imageHarness(t)
	script := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(script, []byte(`{"turns":[{"text":"hi"}]}`), 0o644)
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "demo", Provider: "scripted", ModelID: "demo", BaseURL: script}); err != nil {
		t.Fatal(err)
	}
	s, _ := h.NewSession(harness.NewSessionOptions{Name: "t", Workspace: ws, Model: "demo"})
	before, _ := h.BranchEvents(s.Branch, 0, 0)
	res, err := New(h, Options{Headless: true}).Prompt(context.Background(), s.ID, "what is in @shot.png?", "run")
	var refused *ImagesRefused
	if !errors.As(err, &refused) || !strings.Contains(res.Failure, "shot.png") || !strings.Contains(res.Failure, "scripted") {
		t.Fatalf("err %v, failure %q", err, res.Failure)
	}
	after, _ := h.BranchEvents(s.Branch, 0, 0)
	if len(after) != len(before) {
		t.Fatalf("%d events were recorded for a refused prompt", len(after)-len(before))
	}
}
