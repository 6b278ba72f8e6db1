package store

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
)

func TestArtifactsDedupAndRead(t *testing.T) {
	s := openTest(t, Options{})
	a1, err := s.PutArtifact("out.txt", strings.NewReader("hello artifact"))
	if err != nil {
		t.Fatal(err)
	}
	a2, err := s.PutArtifact("again.txt", strings.NewReader("hello artifact"))
	if err != nil {
		t.Fatal(err)
	}
	if a1.ID != a2.ID || a2.Name != "out.txt" {
		t.Fatalf("identical content stored twice: %+v %+v", a1, a2)
	}
	n, size, _ := s.ArtifactStats()
	if n != 1 || size != int64(len("hello artifact")) {
		t.Fatalf("stats %d %d", n, size)
	}
	r, info, err := s.OpenArtifact(a1.ID[:8])
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, _ := io.ReadAll(r)
	if string(b) != "hello artifact" || info.Size != 14 {
		t.Fatalf("read back %q %+v", b, info)
	}
	if _, _, err := s.OpenArtifact("ffffffff"); err == nil {
		t.Fatal("unknown artifact opened")
	}
}

// zeroReader yields n zero bytes without holding them.
type zeroReader struct{ n int64 }

func (z *zeroReader) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), z.n)
	clear(p[:k])
	z.n -= k
	return int(k), nil
}

// TestArtifactStreamsWithBoundedMemory writes a 512 MiB artifact from a reader and checks the
// heap never held it.
func TestArtifactStreamsWithBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 512 MiB")
	}
	s := openTest(t, Options{})
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const size = 512 << 20
	a, err := s.PutArtifact("big", &zeroReader{n: size})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if a.Size != size {
		t.Fatalf("size %d", a.Size)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Fatalf("writing the artifact allocated %d bytes", grew)
	}
	r, _, _ := s.OpenArtifact(a.ID)
	defer r.Close()
	buf := make([]byte, 1<<16)
	n, _ := io.ReadFull(r, buf)
	if n != len(buf) || !bytes.Equal(buf, make([]byte, len(buf))) {
		t.Fatal("artifact content differs")
	}
}
