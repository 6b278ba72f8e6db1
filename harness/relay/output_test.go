package relay

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
)

// orderedWriter records which stream each write went to, so the test sees the interleaving.
type orderedWriter struct {
	log  *strings.Builder
	name string
}

func (w orderedWriter) Write(p []byte) (int, error) {
	fmt.Fprintf(w.log, "%s:%s|", w.name, p)
	return len(p), nil
}

// TestBatchKeepsOrderAndShowsPrompts: stdout and stderr interleaved line by line reach the
// client in their order, and a prompt written before a read of stdin reaches the client
// before the command waits for the answer (the client writes the answer only once it saw it).
func TestBatchKeepsOrderAndShowsPrompts(t *testing.T) {
	t.Parallel()
	sock, errc := serveOne(t, "b1", accept, func(ctx context.Context, inv Invocation, sio ServerIO) int {
		for i := range 3 {
			fmt.Fprintf(sio.Stdout, "o%d", i)
			fmt.Fprintf(sio.Stderr, "e%d", i)
		}
		io.WriteString(sio.Stdout, "name?")
		b := make([]byte, 16)
		n, err := sio.Stdin.Read(b)
		if err != nil {
			return 9
		}
		fmt.Fprintf(sio.Stdout, "hi %s", b[:n])
		return 0
	})
	c, err := Start(sock, "1", "b1", Invocation{Args: []string{"run", "-"}})
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	pr, pw := io.Pipe()
	out := promptWriter{orderedWriter{&log, "o"}, pw}
	code, err := c.Wait(Stdio{Stdin: pr, Stdout: out, Stderr: orderedWriter{&log, "e"}})
	if err != nil || code != 0 {
		t.Fatalf("code %d err %v", code, err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	// Each stream's run may arrive in one write or several; join consecutive writes of one.
	got := joinRuns(log.String())
	if want := "o:o0|e:e0|o:o1|e:e1|o:o2|e:e2|o:name?hi ann|"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// promptWriter answers "ann" on stdin once the prompt "name?" was written to stdout.
type promptWriter struct {
	orderedWriter
	answer *io.PipeWriter
}

func (w promptWriter) Write(p []byte) (int, error) {
	n, err := w.orderedWriter.Write(p)
	if bytes.HasSuffix(p, []byte("name?")) {
		go func() { io.WriteString(w.answer, "ann"); w.answer.Close() }()
	}
	return n, err
}

func joinRuns(s string) string {
	var out strings.Builder
	prev := ""
	for _, part := range strings.Split(strings.TrimSuffix(s, "|"), "|") {
		name, text, _ := strings.Cut(part, ":")
		if name == prev {
			out.WriteString(text)
			continue
		}
		if prev != "" {
			out.WriteString("|")
		}
		out.WriteString(name + ":" + text)
		prev = name
	}
	return out.String() + "|"
}

// countingWriter counts the writes the client makes.
type countingWriter struct{ writes, bytes int }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	w.bytes += len(p)
	return len(p), nil
}

// BenchmarkRelayLines relays what exo log --json of a 20k-turn session prints: 80,000 lines of
// 340 bytes, each written on its own, over a real unix socket to a client that discards them.
func BenchmarkRelayLines(b *testing.B) {
	line := append(bytes.Repeat([]byte("x"), 339), '\n')
	const lines = 80000
	sock, errc := serveOne(b, "b1", accept, func(ctx context.Context, inv Invocation, sio ServerIO) int {
		for range lines {
			if _, err := sio.Stdout.Write(line); err != nil {
				return 1
			}
		}
		return 0
	})
	b.SetBytes(int64(lines * len(line)))
	b.ReportAllocs()
	var w countingWriter
	for b.Loop() {
		c, err := Start(sock, "1", "b1", Invocation{Args: []string{"log"}})
		if err != nil {
			b.Fatal(err)
		}
		if code, err := c.Wait(Stdio{Stdout: &w, Stderr: io.Discard}); err != nil || code != 0 {
			b.Fatal(code, err)
		}
		if err := <-errc; err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(w.writes)/float64(b.N), "writes/op")
}

// TestBatchSendsWhileTheCommandWaits: output written before the command waits on something
// other than stdin (a stream, a turn) reaches the client without a further write.
func TestBatchSendsWhileTheCommandWaits(t *testing.T) {
	t.Parallel()
	seen := make(chan struct{}, 3)
	sock, errc := serveOne(t, "b1", accept, func(ctx context.Context, inv Invocation, sio ServerIO) int {
		for range 3 {
			io.WriteString(sio.Stdout, "  thinking: ")
			io.WriteString(sio.Stdout, "partial")
			<-seen // the client saw it: the command goes on
		}
		return 0
	})
	c, err := Start(sock, "1", "b1", Invocation{Args: []string{"tail"}})
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	w := writerFunc(func(p []byte) (int, error) {
		got.Write(p)
		if strings.HasSuffix(got.String(), "partial") {
			seen <- struct{}{}
		}
		return len(p), nil
	})
	if code, err := c.Wait(Stdio{Stdout: w, Stderr: io.Discard}); err != nil || code != 0 {
		t.Fatal(code, err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if got.String() != strings.Repeat("  thinking: partial", 3) {
		t.Fatalf("got %q", got.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
