package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// fileSink is a file-backed ArtifactSink for tests.
type fileSink struct{ dir string }

// fileArtifact writes one artifact to a file.
type fileArtifact struct {
	f *os.File
	n int64
}

func (s fileSink) NewArtifact(name string) (ArtifactWriter, error) {
	f, err := os.CreateTemp(s.dir, name+"-*")
	if err != nil {
		return nil, err
	}
	return &fileArtifact{f: f}, nil
}

func (a *fileArtifact) Write(p []byte) (int, error) {
	n, err := a.f.Write(p)
	a.n += int64(n)
	return n, err
}

func (a *fileArtifact) Commit() (string, error) { return a.f.Name(), a.f.Close() }

func (a *fileArtifact) Abort() error { a.f.Close(); return os.Remove(a.f.Name()) }

// lockedBuffer is a goroutine-safe bytes.Buffer for the live stream.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestEscapesNeutralised(t *testing.T) {
	sh := newTestShell(t, testConfig(t))
	var live lockedBuffer
	cmd := `printf '\033]0;evil title\007\033]52;c;ZXZpbA==\007\033]8;;file:///etc/passwd\033\\link\033]8;;\033\\ \033[?1049h\033[2J\033[H\033[31mred\033[0m \033P+q\033\\\033_apc\033\\\033[5Aup\033c\n'`
	r := run(t, sh, cmd, RunOptions{Stream: &live})
	want := "link \x1b[31mred\x1b[0m up\r\n"
	if live.String() != want {
		t.Fatalf("display stream %q, want %q", live.String(), want)
	}
	if r.Output != "link red up\n" {
		t.Fatalf("model text %q", r.Output)
	}
}

func TestBinaryOutput(t *testing.T) {
	sh := newTestShell(t, testConfig(t))
	var live lockedBuffer
	r := run(t, sh, "head -c 100000 /dev/urandom; printf '\\n\\377\\376 tail-ok\\n'", RunOptions{Stream: &live})
	if r.ExitCode != 0 || !strings.HasSuffix(r.Output, "\n\uFFFD\uFFFD tail-ok\n") {
		t.Fatalf("binary output: exit %d tail %q", r.ExitCode, r.Output[max(0, len(r.Output)-40):])
	}
	for i, s := range []string{r.Output, live.String()} {
		if bad := invalidText(s); bad != "" {
			t.Fatalf("stream %d: %s", i, bad)
		}
	}
	if r2 := run(t, sh, "echo fine", RunOptions{}); r2.Output != "fine\n" {
		t.Fatalf("shell broken after binary output: %q", r2.Output)
	}
}

// invalidText describes the first invalid UTF-8 or control character in s (but \n, \r, \t and SGR's ESC).
func invalidText(s string) string {
	if !utf8.ValidString(s) {
		return "invalid UTF-8"
	}
	for i, r := range s {
		if r == '\n' || r == '\r' || r == '\t' || r == 0x1b {
			continue
		}
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			return fmt.Sprintf("control %U at %d: %q", r, i, s[max(0, i-10):min(len(s), i+10)])
		}
	}
	return ""
}

func TestLargeOutputGoesToArtifact(t *testing.T) {
	cfg := testConfig(t)
	cfg.Artifacts = fileSink{dir: t.TempDir()}
	sh := newTestShell(t, cfg)
	r := run(t, sh, "seq 1 200000", RunOptions{})
	if !r.Truncated || r.ArtifactRef == "" || r.TotalBytes != 1288895 {
		t.Fatalf("result: truncated=%v ref=%q total=%d", r.Truncated, r.ArtifactRef, r.TotalBytes)
	}
	if !strings.HasPrefix(r.Output, "1\n2\n3\n") || !strings.HasSuffix(r.Output, "199999\n200000\n") || !strings.Contains(r.Output, "bytes cut of 1288895; full output in artifact") {
		t.Fatalf("head/tail: %q ... %q", r.Output[:20], r.Output[len(r.Output)-200:])
	}
	full, _ := os.ReadFile(r.ArtifactRef)
	if len(full) != 1288895 || !bytes.HasSuffix(full, []byte("\n200000\n")) {
		t.Fatalf("artifact has %d bytes", len(full))
	}
}

// peakHeap samples HeapInuse until stop is closed and returns the maximum.
func peakHeap(stop chan struct{}) func() uint64 {
	var peak uint64
	done := make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return func() uint64 { <-done; return peak }
}

// hugeOutput runs a command printing size bytes of base64 and checks memory stays bounded.
func hugeOutput(t *testing.T, size string, wantBytes int64) {
	cfg := testConfig(t)
	cfg.Artifacts = fileSink{dir: t.TempDir()}
	sh := newTestShell(t, cfg)
	var live countWriter
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	stop := make(chan struct{})
	peak := peakHeap(stop)
	start := time.Now()
	r := run(t, sh, fmt.Sprintf("head -c %s /dev/zero | base64", size), RunOptions{Timeout: 10 * time.Minute, Stream: &live})
	close(stop)
	p := peak()
	t.Logf("%s of input: %d bytes of text in %s (%.0f MB/s), heap before %d MiB, peak %d MiB",
		size, r.TotalBytes, time.Since(start).Round(time.Millisecond), float64(r.TotalBytes)/time.Since(start).Seconds()/1e6, before.HeapInuse>>20, p>>20)
	if r.ExitCode != 0 || r.TotalBytes != wantBytes || r.ArtifactRef == "" {
		t.Fatalf("result: exit %d total %d ref %q notes %v", r.ExitCode, r.TotalBytes, r.ArtifactRef, r.Notes)
	}
	if st, err := os.Stat(r.ArtifactRef); err != nil || st.Size() != wantBytes {
		t.Fatalf("artifact: %v %v", st, err)
	}
	if p > before.HeapInuse+64<<20 {
		t.Fatalf("peak heap %d MiB, more than 64 MiB over the %d MiB before", p>>20, before.HeapInuse>>20)
	}
	if live.n < wantBytes {
		t.Fatalf("live stream got %d bytes", live.n)
	}
	if len(r.Output) > 2*cfg.InlineLimit+200 && cfg.InlineLimit > 0 {
		t.Fatalf("inline output %d bytes", len(r.Output))
	}
}

// countWriter counts bytes written.
type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// base64Len is the length of `base64` output (76-column lines) for n input bytes.
func base64Len(n int64) int64 {
	b := (n + 2) / 3 * 4
	return b + (b+75)/76
}

func TestBigOutputBoundedMemory(t *testing.T) {
	hugeOutput(t, "32M", base64Len(32<<20))
}
