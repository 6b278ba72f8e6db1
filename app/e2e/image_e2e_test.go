package e2e

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness/provider/providertest"
)

// TestCLIImageMention runs `exo run "what is in @shot.png"` against a local Chat Completions
// server: the request carries the PNG as an image_url data URL of the file's bytes, and `exo
// log` shows the attachment line without the bytes. A text named .png and an image too big
// reach the model only as notes; the scripted model refuses a prompt with an image, saying so,
// and records nothing, not even the first workspace snapshot a turn starts.
func TestCLIImageMention(t *testing.T) {
	t.Parallel()
	srv := providertest.NewScriptedChat(providertest.ChatReply{Text: "a grey square"}, providertest.ChatReply{Text: "noted"})
	defer srv.Close()
	home, ws := t.TempDir(), t.TempDir()
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, 16, 9)))
	pic := b.Bytes()
	os.WriteFile(filepath.Join(ws, "shot.png"), pic, 0o644)
	os.WriteFile(filepath.Join(ws, "fake.png"), []byte("not an image\n"), 0o644)
	big, _ := os.Create(filepath.Join(ws, "big.png"))
	big.Write(pic)
	big.Truncate(4 << 20)
	big.Close()
	mustRunIn(t, home, ws, "model", "register", "m", "--provider", "openai-compatible", "--base-url", srv.BaseURL(), "--model-id", "llava")
	mustRunIn(t, home, ws, "new", "--name", "img")
	out := mustRunIn(t, home, ws, "run", "--session", "img", "what is in @shot.png?")
	if !strings.Contains(out, "a grey square") {
		t.Fatalf("exo run: %s", out)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	url := `{"image_url":{"url":"data:image/png;base64,` + base64.StdEncoding.EncodeToString(pic) + `"},"type":"image_url"}`
	if !strings.Contains(string(reqs[0].Body), url) {
		t.Fatalf("the request does not carry the image: %.800s", reqs[0].Body)
	}
	log := mustRunIn(t, home, ws, "log", "img")
	if !strings.Contains(log, "shot.png") || strings.Contains(log, base64.StdEncoding.EncodeToString(pic)[:32]) {
		t.Fatalf("exo log:\n%s", log)
	}
	mustRunIn(t, home, ws, "run", "--session", "img", "and @fake.png @big.png?")
	body := string(srv.Requests()[1].Body)
	if !strings.Contains(body, "named like an image") || !strings.Contains(body, "over the 3.75 MiB") || strings.Count(body, `"type":"image_url"`) != 1 {
		t.Fatalf("the notes of fake.png and big.png (and only the first turn's image): %.2000s", body)
	}
	// The scripted model takes no images: the prompt is refused, not sent without them.
	mustRunIn(t, home, ws, "model", "register", "demo", "--provider", "scripted")
	mustRunIn(t, home, ws, "new", "--name", "text")
	before := mustRunIn(t, home, ws, "log", "text")
	_, errs, code := exoEnv(t, home, ws, nil, "run", "--session", "text", "--model", "demo", "what is in @shot.png?")
	if code == 0 || !strings.Contains(errs, "shot.png") || !strings.Contains(errs, "takes no images") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// Stopping the daemon waits for its background work (a first snapshot the prompt could
	// have started), so the log read after it has all the refused prompt left behind.
	mustRunIn(t, home, ws, "daemon", "stop")
	if after := mustRunIn(t, home, ws, "log", "text"); after != before {
		t.Fatalf("a refused prompt was recorded:\n%s", after)
	}
}
