package extexec

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"exo/harness"
)

// benchStream is an Anthropic answer of n text deltas as the provider streams it.
func benchStream(n int) []byte {
	var b strings.Builder
	b.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n")
	b.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"word %d of the answer \"}}\n\n", i)
	}
	b.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
	b.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":" + fmt.Sprint(n) + "}}\n\n")
	b.WriteString("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	return []byte(b.String())
}

// streamEndpoint is an endpoint whose upstream model is served by upstream, with a secret
// sealed (so answers are redacted) and a store that does not fsync.
func streamEndpoint(tb testing.TB, upstream http.HandlerFunc) (*Endpoint, *harness.Harness) {
	up := httptest.NewServer(upstream)
	tb.Cleanup(up.Close)
	dir, err := os.MkdirTemp("", "exo-bench-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) }) // not TempDir: the store may still write as the test ends
	h, err := harness.Open(dir, harness.Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { h.Close() })
	h.SetSecret("k", []byte("sk-sealed-value-1234567890"))
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "m", Provider: "anthropic", ModelID: "claude-sonnet-4-5", BaseURL: up.URL, Secret: "k"}); err != nil {
		tb.Fatal(err)
	}
	s, err := h.NewSession(harness.NewSessionOptions{Name: "s"})
	if err != nil {
		tb.Fatal(err)
	}
	upstreamModel, err := OpenUpstream(h, "")
	if err != nil {
		tb.Fatal(err)
	}
	spec, _ := h.Model("")
	log := NewLog(h, s.ID, "agent", spec)
	log.BeginTurn(s.Branch)
	ep, err := NewEndpoint(log, upstreamModel)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ep.Close() })
	return ep, h
}

// TestEndpointRelaysALineOverTheTapsLimit: an event line over the SSE reader's 16 MiB reaches
// the agent whole (redacted), though exo stops tapping there.
func TestEndpointRelaysALineOverTheTapsLimit(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("x", 17<<20) + "sk-sealed-value-1234567890"
	ep, _ := streamEndpoint(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "event: ping\ndata: {\"type\":\"ping\",\"pad\":\""+huge+"\"}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	})
	req, _ := http.NewRequest(http.MethodPost, ep.URL()+"/v1/messages", strings.NewReader(`{"model":"m","max_tokens":1,"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("X-Api-Key", ep.Token())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil || !bytes.Contains(out, []byte("message_stop")) || bytes.Count(out, []byte("x")) < 17<<20 {
		t.Fatalf("the agent got %d bytes (%v)", len(out), err)
	}
	if bytes.Contains(out, []byte("sk-sealed-value")) {
		t.Fatal("the secret reached the agent")
	}
}

// BenchmarkEndpointStream is one streamed model call through the endpoint: the agent's request
// forwarded with the sealed key, an answer of 2,000 deltas (about 230 KB) relayed, tapped,
// redacted (a secret is sealed) and recorded (without fsync).
func BenchmarkEndpointStream(b *testing.B) {
	stream := benchStream(2000)
	ep, _ := streamEndpoint(b, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for rest := stream; len(rest) > 0; { // in chunks, as a provider's stream arrives
			n := min(len(rest), 4<<10)
			_, _ = w.Write(rest[:n])
			w.(http.Flusher).Flush()
			rest = rest[n:]
		}
	})
	body := `{"model":"claude-sonnet-4-5","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req, _ := http.NewRequest(http.MethodPost, ep.URL()+"/v1/messages", strings.NewReader(body))
		req.Header.Set("X-Api-Key", ep.Token())
		req.Header.Set("Anthropic-Version", "2023-06-01")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || n < int64(len(stream)) {
			b.Fatalf("status %d, %d bytes", res.StatusCode, n)
		}
	}
}

// TestEndpointProxyForwardsOnlyWhatItShould: the provider gets the sealed key, never the agent's
// token nor a forwarding header; an agent asking for gzip still gets the answer as text, so a
// secret the provider streams back compressed is redacted all the same.
func TestEndpointProxyForwardsOnlyWhatItShould(t *testing.T) {
	t.Parallel()
	seen := make(chan http.Header, 1)
	ep, _ := streamEndpoint(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		seen <- r.Header.Clone()
		w.Header().Set("Content-Type", "text/event-stream")
		var body io.Writer = w
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
			gz := gzip.NewWriter(w)
			defer gz.Close()
			body = gz
		}
		_, _ = io.WriteString(body, string(benchStream(3))+"event: ping\ndata: {\"type\":\"ping\",\"leak\":\"sk-sealed-value-1234567890\"}\n\n")
	})
	req, _ := http.NewRequest(http.MethodPost, ep.URL()+"/v1/messages", strings.NewReader(`{"model":"m","max_tokens":1,"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("X-Api-Key", ep.Token())
	req.Header.Set("Authorization", "Bearer "+ep.Token())
	req.Header.Set("Proxy-Authorization", "Basic "+ep.Token())
	req.Header.Set("X-Forwarded-For", "10.9.9.9")
	req.Header.Set("Anthropic-Beta", "some-beta")
	req.Header.Set("Accept-Encoding", "gzip")
	tr := &http.Transport{DisableCompression: true} // the agent's own Accept-Encoding stands
	res, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	if res.Header.Get("Content-Encoding") != "" || !bytes.Contains(out, []byte("message_stop")) {
		t.Fatalf("the agent got %q encoded %q", out, res.Header.Get("Content-Encoding"))
	}
	if bytes.Contains(out, []byte("sk-sealed-value")) {
		t.Fatal("the secret reached the agent")
	}
	h := <-seen
	all := fmt.Sprint(h)
	if strings.Contains(all, ep.Token()) || h.Get("X-Forwarded-For") != "" || h.Get("Proxy-Authorization") != "" {
		t.Fatalf("the provider got %v", h)
	}
	if h.Get("X-Api-Key") != "sk-sealed-value-1234567890" || h.Get("Anthropic-Beta") != "some-beta" {
		t.Fatalf("the provider got key %q beta %q", h.Get("X-Api-Key"), h.Get("Anthropic-Beta"))
	}
}
