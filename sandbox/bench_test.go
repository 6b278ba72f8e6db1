package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func BenchmarkExec(b *testing.B) {
	sh := newTestShell(b, testConfig(b))
	run(b, sh, "true", RunOptions{})
	b.ResetTimer()
	for b.Loop() {
		if r, err := sh.Run(context.Background(), "true", RunOptions{}); err != nil || r.ExitCode != 0 {
			b.Fatalf("%+v %v", r, err)
		}
	}
}

// throughputBytes is how much output each throughput iteration produces.
const throughputBytes = 16 << 20

func BenchmarkOutputThroughput(b *testing.B) {
	cfg := testConfig(b)
	cfg.Artifacts = fileSink{dir: b.TempDir()}
	sh := newTestShell(b, cfg)
	var live countWriter
	cmd := fmt.Sprintf("head -c %d /dev/zero | base64 -w 0 | head -c %d", throughputBytes, throughputBytes)
	b.SetBytes(throughputBytes)
	for b.Loop() {
		if r := run(b, sh, cmd, RunOptions{Stream: &live}); r.TotalBytes != throughputBytes {
			b.Fatalf("got %d bytes", r.TotalBytes)
		}
	}
}

// BenchmarkCatToDevNull is the same data with no PTY, for comparison.
func BenchmarkCatToDevNull(b *testing.B) {
	cmd := fmt.Sprintf("head -c %d /dev/zero | base64 -w 0 | head -c %d | cat > /dev/null", throughputBytes, throughputBytes)
	b.SetBytes(throughputBytes)
	for b.Loop() {
		if out, err := exec.Command("bash", "-c", cmd).CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

// benchWorkspace builds a workspace of n small files in nested directories.
func benchWorkspace(b *testing.B, n int) string {
	ws := filepath.Join(b.TempDir(), "ws")
	for i := range n {
		write(b, ws, fmt.Sprintf("d%02d/e%02d/f%05d.txt", i%50, (i/50)%20, i), fmt.Sprintf("file %d\n", i))
	}
	return ws
}

// benchSnapshotter returns a snapshotter with a first full snapshot taken.
func benchSnapshotter(b *testing.B, ws string) *Snapshotter {
	s, err := NewSnapshotter(ws, ShadowDir(b.TempDir(), ws), SnapshotOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if _, err := s.Snapshot(); err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkSnapshot(b *testing.B) {
	ws := benchWorkspace(b, 10000)
	s := benchSnapshotter(b, ws)
	i := 0
	for b.Loop() {
		i++
		write(b, ws, "d07/e07/f00357.txt", fmt.Sprintf("edit %d\n", i))
		snap, err := s.Snapshot()
		if err != nil || len(snap.Changed) != 1 {
			b.Fatalf("%+v %v", snap.Changed, err)
		}
	}
}

func BenchmarkRestore(b *testing.B) {
	ws := benchWorkspace(b, 10000)
	s := benchSnapshotter(b, ws)
	base, _ := s.Snapshot()
	path := filepath.Join(ws, "d07/e07/f00357.txt")
	i := 0
	for b.Loop() {
		i++
		write(b, ws, "d07/e07/f00357.txt", fmt.Sprintf("edit %d\n", i))
		if _, err := s.Restore(base.Commit); err != nil {
			b.Fatal(err)
		}
		if data, _ := os.ReadFile(path); string(data) != "file 357\n" {
			b.Fatalf("restored %q", data)
		}
	}
}
