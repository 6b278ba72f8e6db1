package extexec

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/executor"
)

// TestBridgesCarryImages: a Messages request (Claude Code's) and a Responses request (Codex's)
// with an image after the prompt's text are mapped onto exo's provider request with the image's
// bytes, for the model exo serves them with; an image without base64 data is refused, not
// dropped.
func TestBridgesCarryImages(t *testing.T) {
	pic := []byte("\x89PNG\r\n\x1a\nnot-really-the-rest")
	b64 := base64.StdEncoding.EncodeToString(pic)
	var a anthropicRequest
	if err := json.Unmarshal([]byte(`{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"text","text":"what is this"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"`+b64+`"}}]}]}`), &a); err != nil {
		t.Fatal(err)
	}
	req, err := a.toProvider("gpt-4.1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(req.Messages) != 1 || req.Messages[0].Text != "what is this" || len(req.Messages[0].Images) != 1 ||
		req.Messages[0].Images[0].MediaType != "image/png" || !bytes.Equal(req.Messages[0].Images[0].Data, pic) {
		t.Fatalf("Messages bridge: %+v", req.Messages)
	}
	var byURL anthropicRequest
	json.Unmarshal([]byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://x/y.png"}}]}]}`), &byURL)
	if _, err := byURL.toProvider("gpt-4.1", 0); err == nil {
		t.Fatal("an image by URL was dropped silently")
	}
	var q responsesRequest
	if err := json.Unmarshal([]byte(`{"model":"m","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"what is this"},{"type":"input_image","image_url":"data:image/png;base64,`+b64+`"}]}]}`), &q); err != nil {
		t.Fatal(err)
	}
	req, err = q.toProvider("claude-sonnet-4-5", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(req.Messages) != 1 || req.Messages[0].Text != "what is this" || len(req.Messages[0].Images) != 1 ||
		req.Messages[0].Images[0].MediaType != "image/png" || !bytes.Equal(req.Messages[0].Images[0].Data, pic) {
		t.Fatalf("Responses bridge: %+v", req.Messages)
	}
}

// textAgent is a Proc that says nothing of images.
type textAgent struct{ Proc }

// TestAgentWithoutImagesRefuses: a prompt with an image for an agent that does not take images
// is refused naming the image, before anything is recorded or read.
func TestAgentWithoutImagesRefuses(t *testing.T) {
	r := &Runner{}
	ss := &Session{Proc: textAgent{}}
	_, err := r.turnImages(ss, []harness.Attachment{{Path: "notes.md"}, {Path: "shot.png", Image: &api.ImageRef{Artifact: "abc", MediaType: "image/png"}}})
	var refused *executor.ImagesRefused
	if !errors.As(err, &refused) || len(refused.Paths) != 1 || refused.Paths[0] != "shot.png" || !strings.Contains(err.Error(), "takes no images") {
		t.Fatalf("err %v", err)
	}
	if ims, err := r.turnImages(ss, []harness.Attachment{{Path: "notes.md"}}); err != nil || ims != nil {
		t.Fatalf("a prompt without images: %v %v", ims, err)
	}
}
