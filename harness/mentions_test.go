package harness

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMentions finds @path mentions: at the start or after a space, quoted, without trailing
// punctuation or duplicates, and not inside an address.
func TestMentions(t *testing.T) {
	got := Mentions(`explain @main.go, then @"docs/a b.md" and (@x/y.go). mail me@example.com @main.go @`)
	want := []string{"main.go", "docs/a b.md", "x/y.go"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestAttach attaches what mentions name: a file, a large file cut at 256 KiB, a folder's
// listing; a binary file, a link and files under exo's home are refused with a note; a
// mention of nothing, "..", or an absolute path attaches nothing.
func TestAttach(t *testing.T) {
	h, ws := attachSetup(t)
	files := map[string][]byte{
		"main.go":     []byte("package main\n"),
		"big.txt":     []byte(strings.Repeat("é123456789\n", 30_000)),
		"img.png":     {0x89, 'P', 'N', 'G', 0, 1, 2},
		"pkg/a.go":    []byte("package pkg\n"),
		"pkg/b.go":    []byte("package pkg\n"),
		".gitignore":  []byte("*.log\n"),
		"pkg/out.log": []byte("x"),
	}
	for p, b := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, p)), 0o755)
		os.WriteFile(filepath.Join(ws, p), b, 0o644)
	}
	s, err := h.NewSession(NewSessionOptions{Name: "a", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	atts, err := h.Attach(s.ID, "look at @main.go @big.txt @img.png @pkg @nothing.go @../etc/passwd @/etc/passwd")
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]Attachment{}
	for _, a := range atts {
		byPath[a.Path] = a
	}
	if len(atts) != 4 {
		t.Fatalf("%d attachments: %+v", len(atts), atts)
	}
	if a := byPath["main.go"]; a.Content != "package main\n" || a.Note != "" || a.Size != 13 {
		t.Errorf("main.go %+v", a)
	}
	if a := byPath["big.txt"]; !a.Truncated || len(a.Content) > MaxAttachBytes || len(a.Content) < MaxAttachBytes-4 || !strings.Contains(a.Note, "256 KiB") {
		t.Errorf("big.txt: truncated %v, %d bytes, note %q", a.Truncated, len(a.Content), a.Note)
	}
	if a := byPath["img.png"]; a.Content != "" || a.Image != nil || !strings.Contains(a.Note, "not a PNG") {
		t.Errorf("img.png %+v", a)
	}
	if a := byPath["pkg"]; a.Content != "a.go\nb.go\n" {
		t.Errorf("pkg listing %q", a.Content)
	}
	text := AttachmentsText(atts)
	if !strings.Contains(text, `<attached_file path="main.go">`+"\npackage main\n</attached_file>") {
		t.Errorf("model text: %s", text)
	}
}

// TestAttachLinkEscape plants links to a file outside the workspace, to a folder outside, and
// to exo's home: nothing outside is read, each is attached only as a note.
func TestAttachLinkEscape(t *testing.T) {
	h, ws := attachSetup(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("OUTSIDE-9e2f"), 0o600)
	os.WriteFile(filepath.Join(h.Home(), "planted.txt"), []byte("HOME-4b7a"), 0o600)
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(ws, "link.txt"))
	os.Symlink(outside, filepath.Join(ws, "dir"))
	os.Symlink(h.Home(), filepath.Join(ws, "home"))
	s, _ := h.NewSession(NewSessionOptions{Name: "a", Workspace: ws})
	atts, err := h.Attach(s.ID, "@link.txt @dir/secret.txt @home/planted.txt @home @dir")
	if err != nil {
		t.Fatal(err)
	}
	if len(atts) != 5 {
		t.Fatalf("%d attachments: %+v", len(atts), atts)
	}
	for _, a := range atts {
		if a.Content != "" || !(strings.Contains(a.Note, "symbolic link") || strings.Contains(a.Note, "exo's home")) {
			t.Errorf("%s: %+v", a.Path, a)
		}
	}
	if text := AttachmentsText(atts); strings.Contains(text, "OUTSIDE-9e2f") || strings.Contains(text, "HOME-4b7a") {
		t.Fatal("a file outside the workspace was attached")
	}
	// A workspace that holds exo's home: its files are refused by path.
	h2, _ := attachSetup(t)
	s2, _ := h2.NewSession(NewSessionOptions{Name: "b", Workspace: filepath.Dir(h2.Home())})
	os.WriteFile(filepath.Join(h2.Home(), "planted.txt"), []byte("HOME-4b7a"), 0o600)
	rel := filepath.Base(h2.Home()) + "/planted.txt"
	atts, _ = h2.Attach(s2.ID, "@"+rel)
	if len(atts) != 1 || atts[0].Content != "" || !strings.Contains(atts[0].Note, "exo's home") {
		t.Fatalf("a file under exo's home: %+v", atts)
	}
}

// attachSetup opens a harness and returns it with an empty workspace.
func attachSetup(t *testing.T) (*Harness, string) {
	t.Helper()
	h, err := Open(filepath.Join(t.TempDir(), "home"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, t.TempDir()
}

// TestListFiles lists a workspace for @ completion: folders with a slash, what .gitignore
// (nested, with a negation) leaves out is left out, a planted link to a folder outside is
// listed but never entered, and exo's home inside the workspace is not listed, nor are names
// holding a sealed secret's value.
func TestListFiles(t *testing.T) {
	h, _ := attachSetup(t)
	ws := filepath.Dir(h.Home())
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("x"), 0o600)
	os.WriteFile(filepath.Join(h.Home(), "planted.txt"), []byte("x"), 0o600)
	for p, b := range map[string]string{
		".gitignore": "*.log\nbuild/\n", "main.go": "package main\n", "app.log": "x",
		"build/out.bin": "x", "pkg/.gitignore": "*.tmp\n!keep.tmp\n", "pkg/a.go": "x",
		"pkg/x.tmp": "x", "pkg/keep.tmp": "x",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, p)), 0o755)
		os.WriteFile(filepath.Join(ws, p), []byte(b), 0o644)
	}
	os.Symlink(outside, filepath.Join(ws, "out"))
	s, err := h.NewSession(NewSessionOptions{Name: "l", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	got, err := h.ListFiles(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".gitignore", "main.go", "out", "pkg/", "pkg/.gitignore", "pkg/a.go", "pkg/keep.tmp"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	// A name holding a sealed secret's value is left out, a folder named so with its files.
	const secret = "tok-5c1d9e0a7b3f2468"
	h.SetSecret("tok", []byte(secret))
	os.WriteFile(filepath.Join(ws, "pkg", "key-"+secret+".txt"), []byte("x"), 0o644)
	os.MkdirAll(filepath.Join(ws, secret), 0o755)
	os.WriteFile(filepath.Join(ws, secret, "f.go"), []byte("x"), 0o644)
	if got, _ := h.ListFiles(s.ID); !slices.Equal(got, want) {
		t.Fatalf("with names holding a secret: got %q", got)
	}
	if _, err := h.ListFiles("no-such-session"); err == nil {
		t.Fatal("listed the files of a session that does not exist")
	}
}

// TestAttachAttacks mentions what an agent can plant in the workspace: a named pipe and a
// socket (attached as notes, without blocking), a 2 GiB sparse file (cut, never read whole),
// invalid UTF-8, /proc through an absolute path and through "..", and files holding a sealed
// secret: whole, and straddling the 256 KiB cut, where cutting before redacting left the
// secret's first bytes for the model. Nothing of the secret is in any attachment.
func TestAttachAttacks(t *testing.T) {
	h, ws := attachSetup(t)
	const secret = "sk-live-9f8e7d6c5b4a39281706ZYXWVUTSRQ"
	if err := h.SetSecret("tok", []byte(secret)); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(ws, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(ws, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	big, _ := os.Create(filepath.Join(ws, "huge.txt"))
	big.WriteString("text at the start\n")
	big.Truncate(2 << 30)
	big.Close()
	os.WriteFile(filepath.Join(ws, "bad.txt"), []byte("abc\xff\xfe def"), 0o644)
	os.WriteFile(filepath.Join(ws, "whole.txt"), []byte("the key is "+secret+"\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "cut.txt"), []byte(strings.Repeat("a", MaxAttachBytes-10)+secret+"\n"+strings.Repeat("b", 100)), 0o644)
	s, _ := h.NewSession(NewSessionOptions{Name: "a", Workspace: ws})
	type result struct {
		atts []Attachment
		err  error
	}
	done := make(chan result, 1)
	go func() {
		atts, err := h.Attach(s.ID, "@pipe @sock @huge.txt @bad.txt @whole.txt @cut.txt @/proc/self/environ @../../../../../../proc/self/environ")
		done <- result{atts, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("attaching the planted files did not return")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	by := map[string]Attachment{}
	for _, a := range r.atts {
		by[a.Path] = a
	}
	if len(r.atts) != 6 {
		t.Fatalf("%d attachments: %v", len(r.atts), r.atts)
	}
	for _, p := range []string{"pipe", "sock"} {
		if a := by[p]; a.Content != "" || !strings.Contains(a.Note, "not a regular file") {
			t.Errorf("%s: %+v", p, a)
		}
	}
	if a := by["huge.txt"]; len(a.Content) > MaxAttachBytes || a.Size != 2<<30 || a.Note == "" {
		t.Errorf("huge.txt: %d bytes attached, size %d, note %q", len(a.Content), a.Size, a.Note)
	}
	if a := by["bad.txt"]; a.Content != "" || !strings.Contains(a.Note, "binary") {
		t.Errorf("bad.txt: %+v", a)
	}
	if a := by["whole.txt"]; !strings.Contains(a.Content, "‹secret:tok›") {
		t.Errorf("whole.txt: %q", a.Content)
	}
	if a := by["cut.txt"]; !a.Truncated || len(a.Content) > MaxAttachBytes || !strings.HasPrefix(a.Content, "aaaa") {
		t.Errorf("cut.txt: truncated %v, %d bytes", a.Truncated, len(a.Content))
	}
	text := AttachmentsText(r.atts)
	for n := 6; n <= len(secret); n++ {
		if strings.Contains(text, secret[:n]) {
			t.Fatalf("the attachments hold the secret's first %d bytes", n)
		}
	}
	if strings.Contains(text, "PATH=") {
		t.Fatal("/proc/self/environ was attached")
	}
}
