package sandbox

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// tokenFilter replaces one token with "[R]" in a stream, holding back a tail that could be the
// start of it: a minimal stand-in for the harness's secret redactor.
type tokenFilter struct {
	tok     string
	pending []byte
}

func (f *tokenFilter) Next(p []byte) []byte {
	buf := bytes.ReplaceAll(append(f.pending, p...), []byte(f.tok), []byte("[R]"))
	keep := 0
	for k := min(len(f.tok)-1, len(buf)); k > 0; k-- {
		if bytes.HasSuffix(buf, []byte(f.tok[:k])) {
			keep = k
			break
		}
	}
	f.pending = append([]byte(nil), buf[len(buf)-keep:]...)
	return buf[:len(buf)-keep]
}

func (f *tokenFilter) Flush() []byte { out := f.pending; f.pending = nil; return out }

// TestFilterRunsBeforeTheCut prints a token across the end of the inline head and across the
// start of the inline tail, at every offset: the filter sees the output before the cut, so
// neither the inline text nor the artifact keeps any part of the token.
func TestFilterRunsBeforeTheCut(t *testing.T) {
	const tok = "TOKEN-0123456789abcdef"
	cfg := testConfig(t)
	cfg.InlineLimit = 1000
	arts := &memSink{}
	cfg.Artifacts = arts
	sh := newTestShell(t, cfg)
	n := 0
	defer func() { t.Logf("%d commands", n) }()
	for off := -len(tok) - 1; off <= 1; off++ {
		for _, cmd := range []string{
			fmt.Sprintf("head -c %d /dev/zero | tr '\\0' a; printf %s; head -c 3000 /dev/zero | tr '\\0' b", 500+off, tok),
			fmt.Sprintf("head -c 3000 /dev/zero | tr '\\0' a; printf %s; head -c %d /dev/zero | tr '\\0' b", tok, 500+off),
		} {
			n++
			r := run(t, sh, cmd, RunOptions{Filter: &tokenFilter{tok: tok}})
			if !r.Truncated || strings.Contains(r.Output, "TOKEN") || strings.Contains(r.Output, "0123456789abcdef") {
				t.Fatalf("offset %d: inline output keeps part of the token: %q", off, r.Output)
			}
			art := arts.last()
			if !strings.Contains(art, "[R]") || strings.Contains(art, "TOKEN") {
				t.Fatalf("offset %d: artifact %q", off, art)
			}
		}
	}
}

// memSink keeps artifacts in memory; last returns the newest committed one.
type memSink struct{ arts []*memArt }

// memArt is one in-memory artifact.
type memArt struct{ bytes.Buffer }

func (s *memSink) NewArtifact(string) (ArtifactWriter, error) {
	a := &memArt{}
	s.arts = append(s.arts, a)
	return a, nil
}

func (s *memSink) last() string { return s.arts[len(s.arts)-1].String() }

func (a *memArt) Commit() (string, error) { return "mem", nil }
func (a *memArt) Abort() error            { return nil }

// TestCaptureChunkLargerThanWhatIsLeft writes a chunk bigger than the room left before the head
// is full (a 64 KiB pipe read after a few bytes): head, tail and artifact stay exact.
func TestCaptureChunkLargerThanWhatIsLeft(t *testing.T) {
	sink := &memSink{}
	c := newCapture(1000, sink, "x")
	var all []byte
	for i, n := range []int{10, 4000, 3, 700} {
		p := bytes.Repeat([]byte{byte('a' + i)}, n)
		all = append(all, p...)
		if w, _ := c.Write(p); w != n {
			t.Fatalf("wrote %d of %d", w, n)
		}
	}
	text, _, err := c.finish()
	if err != nil || sink.last() != string(all) {
		t.Fatalf("artifact differs: %v", err)
	}
	if !strings.HasPrefix(text, string(all[:500])+"\n[…") || !strings.HasSuffix(text, "]\n"+string(all[len(all)-500:])) {
		t.Fatalf("head/tail wrong: %q", text)
	}
}
