package provider

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// chunkServerEnv makes the test binary a chunk server (see TestMain): it serves a Chat
// Completions stream of the number of one-character deltas the request's path names, each
// chunk written and flushed on its own as a live server sends tokens, and prints its address.
const chunkServerEnv = "EXO_PROVIDER_CHUNK_SERVER"

// chunkEvery paces the chunk server's chunks: 62,500 a second, the rate of the bench rig's
// fake model server on this machine (160k chunks in about 2.5 s), so that the reader keeps
// pace with the writer as the daemon does there.
const chunkEvery = 16 * time.Microsecond

func TestMain(m *testing.M) {
	if os.Getenv(chunkServerEnv) != "" {
		serveChunks()
		return
	}
	os.Exit(m.Run())
}

// serveChunks runs the chunk server until its standard input closes.
func serveChunks() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr().String())
	go func() {
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		os.Exit(0)
	}()
	_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/n/"), "%d", &n)
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		body := deltaStream(n)
		start := time.Now()
		for k := 1; len(body) > 0; k++ {
			for time.Since(start) < time.Duration(k)*chunkEvery {
			}
			i := bytes.Index(body, []byte("\n\n")) + 2
			if _, err := w.Write(body[:i]); err != nil {
				return
			}
			_ = rc.Flush()
			body = body[i:]
		}
	}))
}

// startChunkServer starts the chunk server in a process of its own, so that the benchmark's
// process counts only the reading side's CPU and context switches.
func startChunkServer(b *testing.B) string {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), chunkServerEnv+"=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("chunk server: %v", err)
	}
	return strings.TrimSpace(addr)
}

// BenchmarkStreamChunks reads an answer of 40k one-character deltas, each its own flushed
// chunk from a server in another process, through the openai-compatible provider, with the
// connection's reads gathered (the providers' own transport) and not (http.DefaultTransport's
// settings), and reports the reading process's context switches and CPU per answer.
func BenchmarkStreamChunks(b *testing.B) {
	const n = 40_000
	addr := startChunkServer(b)
	plain := http.DefaultTransport.(*http.Transport).Clone()
	defer plain.CloseIdleConnections()
	for _, c := range []struct {
		name   string
		client *http.Client
	}{{"gather=off", &http.Client{Transport: plain}}, {"gather=on", nil}} {
		b.Run(c.name, func(b *testing.B) {
			p := NewOpenAICompatible(Config{BaseURL: fmt.Sprintf("http://%s/n/%d", addr, n), HTTPClient: c.client})
			req := Request{Model: "bench", Messages: []Message{{Role: RoleUser, Text: "go"}}}
			var r0, r1 syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				got := 0
				resp, err := p.Stream(context.Background(), req, func(d Delta) { got += len(d.Text) })
				if err != nil || got != n || len(resp.Text) != n {
					b.Fatalf("err = %v, deltas = %d, text = %d", err, got, len(resp.Text))
				}
			}
			b.StopTimer()
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
			sw := (r1.Nvcsw + r1.Nivcsw) - (r0.Nvcsw + r0.Nivcsw)
			cpu := time.Duration(syscall.TimevalToNsec(r1.Utime) + syscall.TimevalToNsec(r1.Stime) -
				syscall.TimevalToNsec(r0.Utime) - syscall.TimevalToNsec(r0.Stime))
			b.ReportMetric(float64(sw)/float64(b.N), "switches/answer")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/answer")
		})
	}
}
