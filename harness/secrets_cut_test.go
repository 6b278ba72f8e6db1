package harness

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"exo/harness/secrets"
)

// cutSecret is the value TestSecretAtEveryCut seals and hunts for.
const cutSecret = "sk-cut-QmZxKwPvRtYhNjLsGoFbVcXzWqErTyUi" // no runs of hex digits: the db is full of hashes

// fragments returns every run of secrets.MinPartial bytes of the secret found in b.
func fragments(b []byte) []string {
	var out []string
	for i := 0; i+secrets.MinPartial <= len(cutSecret); i++ {
		if w := cutSecret[i : i+secrets.MinPartial]; bytes.Contains(b, []byte(w)) {
			out = append(out, w)
		}
	}
	return out
}

// TestSecretAtEveryCut prints a sealed secret at every offset around the two cuts of a
// command's captured output (the end of the inline head, the start of the inline tail) with the
// PTY splitting the stream wherever it does, and searches every place the output goes: the
// result, the artifact, the live stream, the projection, the database file and the artifacts
// folder. No run of MinPartial bytes of the secret may be anywhere.
func TestSecretAtEveryCut(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "s.txt"), []byte(cutSecret), 0o600)
	h := openTest(t, Options{SandboxHelper: testHelper()})
	if err := h.SetSecret("key", []byte(cutSecret)); err != nil {
		t.Fatal(err)
	}
	s, err := h.NewSession(NewSessionOptions{Name: "cut", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	var live bytes.Buffer
	var mu sync.Mutex
	ch, stop := h.Subscribe(4096)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for n := range ch {
			mu.Lock()
			live.Write(n.Output)
			mu.Unlock()
		}
	}()
	const half, after = 32 << 10, 40 << 10 // the default 64 KiB inline limit keeps 32 KiB each side
	pad := func(n int, c string) string { return fmt.Sprintf("head -c %d /dev/zero | tr '\\0' %s; ", n, c) }
	var cmds []string
	for off := -len(cutSecret) - 2; off <= 2; off++ {
		cmds = append(cmds, pad(half+off, "a")+"cat s.txt; "+pad(after, "b")) // across the end of the head
		cmds = append(cmds, pad(after, "a")+"cat s.txt; "+pad(half+off, "b")) // across the start of the tail
	}
	defer func() { t.Logf("%d commands", len(cmds)) }()
	for i, c := range cmds {
		res, err := h.Exec(context.Background(), s.ID, c, ExecOptions{})
		if err != nil || !res.Truncated || res.ArtifactRef == "" {
			t.Fatalf("command %d: %+v %v", i, res.Result, err)
		}
		if f := fragments([]byte(res.Output)); len(f) > 0 {
			t.Fatalf("command %d: the inline output keeps %q", i, f)
		}
		r, _, err := h.Store().OpenArtifact(res.ArtifactRef)
		if err != nil {
			t.Fatal(err)
		}
		art, _ := io.ReadAll(r)
		r.Close()
		if f := fragments(art); len(f) > 0 || !bytes.Contains(art, []byte(secrets.Label("key"))) {
			t.Fatalf("command %d: the artifact keeps %q (or lacks the label)", i, f)
		}
		if _, err := h.Append(s.ID, MustRecord(TypeToolCompleted, ActorHarness, ToolResultOf(fmt.Sprint("c", i), "bash", res.Result))); err != nil {
			t.Fatal(err)
		}
	}
	stop()
	<-done
	mu.Lock()
	if f := fragments(live.Bytes()); len(f) > 0 {
		t.Fatalf("the live stream keeps %q", f)
	}
	mu.Unlock()
	st, _ := h.State(s.ID)
	for _, it := range st.Items {
		if f := fragments([]byte(it.Output + it.Text)); len(f) > 0 {
			t.Fatalf("projection item %d keeps %q", it.Seq, f)
		}
	}
	home := h.Home()
	filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || strings.Contains(p, "/shadow/") {
			return nil // the shadow repository holds the workspace's own files (s.txt)
		}
		b, _ := os.ReadFile(p)
		if f := fragments(b); len(f) > 0 {
			t.Errorf("%s keeps %q", p, f)
		}
		return nil
	})
}

// TestRedactCutAndTail cuts text holding the secret at every offset around the cut, from the
// front (RedactCut, as grep's long lines and diffs are) and from the back (a detached task's
// tail read from its output file): neither keeps a fragment of it.
func TestRedactCutAndTail(t *testing.T) {
	h := openTest(t, Options{})
	if err := h.SetSecret("key", []byte(cutSecret)); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for off := 0; off <= len(cutSecret)+2; off++ {
		text := strings.Repeat("a", 300-off) + cutSecret + strings.Repeat("b", 200)
		if got := h.RedactCut(text, 300); len(fragments([]byte(got))) > 0 || len(got) > 300+len("…") {
			t.Fatalf("offset %d: RedactCut keeps %q (%d bytes)", off, fragments([]byte(got)), len(got))
		}
		f.Truncate(0)
		f.WriteAt([]byte(strings.Repeat("a", 5000)+cutSecret+strings.Repeat("b", 4096-off)), 0)
		if got := h.RedactedTail(f, 4096); len(fragments([]byte(got))) > 0 || len(got) > 4096 {
			t.Fatalf("offset %d: the tail keeps %q", off, fragments([]byte(got)))
		}
	}
}
