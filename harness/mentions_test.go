package harness

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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
	if a := byPath["img.png"]; a.Content != "" || !strings.Contains(a.Note, "binary") {
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
// listed but never entered, and exo's home inside the workspace is not listed.
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
	if _, err := h.ListFiles("no-such-session"); err == nil {
		t.Fatal("listed the files of a session that does not exist")
	}
}
