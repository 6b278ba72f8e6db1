package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttachInFork mentions files in a fork, whose working copy exo keeps under its home: the
// copy's own files attach, while what an agent can plant in the copy to reach the rest of the
// home is refused: links to the secret key, the log, a planted file and another fork's copy,
// a link to the copies' folder, and ".." or absolute paths to the other copy. Nothing but the
// fork's own file reaches the attachments.
func TestAttachInFork(t *testing.T) {
	h, ws := attachSetup(t)
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main // MINE-3c1a\n"), 0o644)
	s, err := h.NewSession(NewSessionOptions{Name: "a", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	f, err := h.Fork(s.ID, 0, ForkOptions{Name: "f"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := h.Fork(s.ID, 0, ForkOptions{Name: "other"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(f.Workspace, h.Home()+string(filepath.Separator)) {
		t.Fatalf("the fork's copy %s is not under exo's home %s", f.Workspace, h.Home())
	}
	os.WriteFile(filepath.Join(other.Workspace, "main.go"), []byte("OTHER-COPY-77d2"), 0o644)
	os.WriteFile(filepath.Join(h.Home(), "planted.txt"), []byte("HOME-4b7a"), 0o600)
	links := map[string]string{
		"key":      filepath.Join(h.Home(), "secret.key"),
		"db":       filepath.Join(h.Home(), "exo.db"),
		"home.txt": filepath.Join(h.Home(), "planted.txt"),
		"other.go": filepath.Join(other.Workspace, "main.go"),
		"copies":   filepath.Dir(f.Workspace),
		"home":     h.Home(),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(f.Workspace, name)); err != nil {
			t.Fatal(err)
		}
	}
	otherID := filepath.Base(other.Workspace)
	atts, err := h.Attach(f.ID, "explain @main.go @key @db @home.txt @other.go @copies/"+otherID+"/main.go @home/planted.txt @../"+otherID+"/main.go @"+filepath.Join(other.Workspace, "main.go")+" @"+filepath.Join(h.Home(), "planted.txt"))
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]Attachment{}
	for _, a := range atts {
		by[a.Path] = a
	}
	if a := by["main.go"]; a.Content != "package main // MINE-3c1a\n" || a.Note != "" {
		t.Fatalf("the fork's own main.go: %+v", a)
	}
	if len(atts) != 7 {
		t.Fatalf("%d attachments (want main.go and 6 refused links): %+v", len(atts), atts)
	}
	for _, a := range atts {
		if a.Path != "main.go" && (a.Content != "" || !strings.Contains(a.Note, "not attached")) {
			t.Errorf("%s attached: %+v", a.Path, a)
		}
	}
	text := AttachmentsText(atts)
	for _, leak := range []string{"OTHER-COPY-77d2", "HOME-4b7a"} {
		if strings.Contains(text, leak) {
			t.Fatalf("the attachments hold %s:\n%s", leak, text)
		}
	}
	// The session the fork came from, outside the home, attaches as before.
	if atts, _ := h.Attach(s.ID, "@main.go"); len(atts) != 1 || !strings.Contains(atts[0].Content, "MINE-3c1a") {
		t.Fatalf("the parent's main.go: %+v", atts)
	}
}

// TestSecretPathDeniedInFork checks the rule the file tools share: in a fork's copy its own
// paths are readable (a file not written yet too), while exo's home, another copy, and a link
// out of the copy (also to a file not there yet) are not, and a workspace that is not one of
// exo's copies gains nothing (not even the copies' folder itself).
func TestSecretPathDeniedInFork(t *testing.T) {
	h, ws := attachSetup(t)
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("x"), 0o644)
	s, _ := h.NewSession(NewSessionOptions{Name: "a", Workspace: ws})
	f, err := h.Fork(s.ID, 0, ForkOptions{Name: "f"})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := h.Fork(s.ID, 0, ForkOptions{Name: "o"})
	os.Symlink(filepath.Join(h.Home(), "secret.key"), filepath.Join(f.Workspace, "key"))
	os.Symlink(h.Home(), filepath.Join(f.Workspace, "homelink"))
	copies := filepath.Dir(f.Workspace)
	for _, c := range []struct {
		ws, path string
		denied   bool
	}{
		{f.Workspace, filepath.Join(f.Workspace, "main.go"), false},
		{f.Workspace, filepath.Join(f.Workspace, "new-file.go"), false},
		{f.Workspace, f.Workspace, false},
		{f.Workspace, filepath.Join(f.Workspace, "key"), true},
		{f.Workspace, filepath.Join(f.Workspace, "homelink", "not-yet.txt"), true},
		{f.Workspace, filepath.Join(f.Workspace, "..", filepath.Base(other.Workspace), "main.go"), true},
		{f.Workspace, filepath.Join(other.Workspace, "main.go"), true},
		{f.Workspace, filepath.Join(h.Home(), "secret.key"), true},
		{f.Workspace, filepath.Join(h.Home(), "exo.db"), true},
		{f.Workspace, copies, true},
		{copies, filepath.Join(other.Workspace, "main.go"), true},
		{h.Home(), filepath.Join(h.Home(), "exo.db"), true},
		{ws, filepath.Join(f.Workspace, "main.go"), true},
	} {
		if got := h.SecretPathDeniedIn(c.ws, c.path); (got != "") != c.denied {
			t.Errorf("workspace %s, path %s: denied %q, want denied %v", c.ws, c.path, got, c.denied)
		}
	}
}
