package provider

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// testPNG encodes a small real PNG.
func testPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{R: 200, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// rawAPI is a fake API that keeps each request's exact bytes and answers with a fixture.
type rawAPI struct {
	mu     sync.Mutex
	bodies [][]byte
	srv    *httptest.Server
}

func newRawAPI(t *testing.T, fixtureFile string) *rawAPI {
	f := &fakeAPI{t: t, replies: []reply{{file: fixtureFile}}}
	a := &rawAPI{}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		a.mu.Lock()
		a.bodies = append(a.bodies, raw)
		a.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(raw))
		f.handle(w, r)
	}))
	t.Cleanup(a.srv.Close)
	return a
}

// field returns the exact bytes of a top-level field of the only request.
func (a *rawAPI) field(t *testing.T, name string) string {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.bodies) != 1 {
		t.Fatalf("%d requests, want 1", len(a.bodies))
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(a.bodies[0], &top); err != nil {
		t.Fatalf("request body: %v", err)
	}
	return string(top[name])
}

// TestImagesRequestBytes sends a user message with an image to each API and checks the exact
// bytes of the conversation as sent: the text, then the image, its base64 the file's bytes.
func TestImagesRequestBytes(t *testing.T) {
	t.Parallel()
	pic := testPNG(t)
	b64 := base64.StdEncoding.EncodeToString(pic)
	msg := Message{Role: RoleUser, Text: "what is in shot.png?", Images: []Image{{MediaType: "image/png", Artifact: "abc", Data: pic}}}
	cases := []struct {
		name, fixture, field, want string
		newP                       func(u string) Provider
	}{
		{"responses", "openai-responses-2-answer.sse", "input",
			`[{"content":[{"text":"what is in shot.png?","type":"input_text"},{"detail":"auto","image_url":"data:image/png;base64,` + b64 + `","type":"input_image"}],"role":"user"}]`,
			func(u string) Provider { return NewOpenAI(Config{APIKey: "k", BaseURL: u + "/v1/"}) }},
		{"chat", "chat-2-answer.sse", "messages",
			`[{"content":[{"text":"what is in shot.png?","type":"text"},{"image_url":{"url":"data:image/png;base64,` + b64 + `"},"type":"image_url"}],"role":"user"}]`,
			func(u string) Provider { return NewOpenAICompatible(Config{APIKey: "k", BaseURL: u + "/v1"}) }},
		{"anthropic", "anthropic-2-answer.sse", "messages",
			`[{"content":[{"text":"what is in shot.png?","type":"text"},{"source":{"data":"` + b64 + `","media_type":"image/png","type":"base64"},"type":"image"}],"role":"user"}]`,
			func(u string) Provider { return NewAnthropic(Config{APIKey: "k", BaseURL: u}) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := newRawAPI(t, c.fixture)
			if _, err := c.newP(a.srv.URL).Stream(context.Background(), Request{Model: "gpt-4.1", Messages: []Message{msg}}, nil); err != nil {
				t.Fatal(err)
			}
			got := a.field(t, c.field)
			if got != c.want {
				t.Fatalf("%s as sent:\n%s\nwant:\n%s", c.field, got, c.want)
			}
			// The base64 in the request is the file's bytes, whole.
			i := strings.Index(got, b64)
			dec, err := base64.StdEncoding.DecodeString(got[i : i+len(b64)])
			if err != nil || !bytes.Equal(dec, pic) {
				t.Fatalf("the image sent is not the file's bytes (%v)", err)
			}
		})
	}
}

// TestImageInput checks what the registry knows of models' image input.
func TestImageInput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		kind, model string
		ok          bool
	}{
		{KindOpenAI, "gpt-4.1", true}, {KindAnthropic, "claude-sonnet-4-5-20250929", true},
		{KindOpenAICompatible, "deepseek/deepseek-chat", false}, {KindOpenAI, "o3-mini", false},
		{KindScripted, "demo", false}, {KindOpenAICompatible, "llava:13b", true},
	} {
		ok, why := ImageInput(c.kind, c.model)
		if ok != c.ok || (!ok && why == "") {
			t.Errorf("ImageInput(%s, %s) = %v %q, want %v with a reason when not", c.kind, c.model, ok, why, c.ok)
		}
	}
}
