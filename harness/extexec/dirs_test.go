package extexec

import (
	"exo/harness/secrets"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSessionDirsRefuseWhatTheAgentPlanted: a link, a file or a named pipe in place of a state
// folder or the error log (the agent writes in its state folder, so it can put one there) is
// refused with the path named, and nothing is made or written at the link's target. (Before,
// MkdirAll followed the link: the target became the agent's HOME, config folder or writable
// /tmp, and its error output was appended to whatever the log's link named.)
func TestSessionDirsRefuseWhatTheAgentPlanted(t *testing.T) {
	for _, c := range []struct {
		name  string
		plant func(t *testing.T, path, outside string)
	}{
		{"link", func(t *testing.T, path, outside string) { must(t, os.Symlink(outside, path)) }},
		{"dangling link", func(t *testing.T, path, outside string) { must(t, os.Symlink(filepath.Join(outside, "new"), path)) }},
		{"file", func(t *testing.T, path, _ string) { must(t, os.WriteFile(path, []byte("x"), 0o600)) }},
		{"fifo", func(t *testing.T, path, _ string) { must(t, syscall.Mkfifo(path, 0o600)) }},
	} {
		for _, which := range []string{"home", "config", "tmp", "stderr.log"} {
			t.Run(c.name+"/"+which, func(t *testing.T) {
				home, outside := t.TempDir(), t.TempDir()
				d, err := SessionDirs(home, "claude-code", "s1")
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(d.Root, which)
				must(t, os.RemoveAll(path))
				c.plant(t, path, outside)
				_, err = SessionDirs(home, "claude-code", "s1")
				if which == "stderr.log" && c.name == "file" {
					if err != nil { // a log of its own is the log
						t.Fatal(err)
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), path) {
					t.Fatalf("SessionDirs with %s a %s: %v", which, c.name, err)
				}
				if es, _ := os.ReadDir(outside); len(es) > 0 {
					t.Fatalf("made at the link's target: %v", es)
				}
			})
		}
	}
	// A hard link as the error log: its other name may be outside.
	home, outside := t.TempDir(), t.TempDir()
	d, _ := SessionDirs(home, "claude-code", "s1")
	must(t, os.WriteFile(filepath.Join(outside, "profile"), nil, 0o600))
	must(t, os.Link(filepath.Join(outside, "profile"), d.Stderr))
	if _, err := SessionDirs(home, "claude-code", "s1"); err == nil || !strings.Contains(err.Error(), "hard link") {
		t.Fatalf("a hard-linked error log: %v", err)
	}
	if _, err := openLog(d.Stderr); err == nil {
		t.Fatal("openLog opened a hard-linked log")
	}
}

// TestDirsFilesFollowNoLinkOut: exo's own files in the state folder are written by replacing
// them (a link or hard link the agent put at the name is replaced, its target untouched), a
// folder on the way that links out is refused, and reads take regular files in the folder only,
// bounded, without hanging on a named pipe.
func TestDirsFilesFollowNoLinkOut(t *testing.T) {
	home, outside := t.TempDir(), t.TempDir()
	d, err := SessionDirs(home, "acp-x", "s1")
	if err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(outside, "bashrc")
	must(t, os.WriteFile(victim, []byte("user's\n"), 0o600))
	must(t, os.Symlink(victim, filepath.Join(d.Root, "a.json")))
	must(t, os.Link(victim, filepath.Join(d.Root, "b.json")))
	for _, name := range []string{"a.json", "b.json"} {
		if err := d.WriteFile(name, []byte("exo's")); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(filepath.Join(d.Root, name)); string(b) != "exo's" {
			t.Fatalf("%s holds %q", name, b)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "user's\n" {
		t.Fatalf("written through a planted link: %q", b)
	}
	must(t, os.Symlink(outside, filepath.Join(d.Config, "projects")))
	if err := d.WriteFile("config/projects/p/t.jsonl", []byte("x")); err == nil {
		t.Fatal("a write through a folder linking out was made")
	}
	if es, _ := os.ReadDir(outside); len(es) != 1 {
		t.Fatalf("outside holds %v", es)
	}
	must(t, os.Symlink("/dev/zero", filepath.Join(d.Root, "zero.json")))
	must(t, syscall.Mkfifo(filepath.Join(d.Root, "fifo.json"), 0o600))
	must(t, os.Symlink(victim, filepath.Join(d.Root, "c.json")))
	must(t, os.WriteFile(filepath.Join(d.Root, "big.json"), make([]byte, 2<<10), 0o600))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, name := range []string{"zero.json", "fifo.json", "c.json", "big.json"} {
			if b, err := d.ReadFile(name, 1<<10); err == nil {
				t.Errorf("%s read: %d bytes", name, len(b))
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("a read of the state folder hangs")
	}
	if b, err := d.ReadFile("a.json", 1<<10); err != nil || string(b) != "exo's" {
		t.Fatalf("a file of the folder: %q %v", b, err)
	}
	// A link that stays inside the folder is refused too (os.Root would follow it): it would
	// take exo's read or write to a file of the agent's choosing.
	must(t, os.Symlink("a.json", filepath.Join(d.Root, "inner.json")))
	if b, err := d.ReadFile("inner.json", 1<<10); err == nil {
		t.Errorf("read through a link inside the folder: %q", b)
	}
	must(t, os.Symlink("../home", filepath.Join(d.Config, "codex")))
	if err := d.WriteFile("config/codex/config.toml", []byte("x")); err == nil {
		t.Error("a write through a folder linking inside the folder was made")
	}
	if _, err := os.Lstat(filepath.Join(d.Home, "config.toml")); err == nil {
		t.Error("exo's file landed where an inside link pointed")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestAgentErrorLogIsRedacted: what an agent writes to its error output reaches its error log
// in the state folder redacted, a secret split across writes and one cut by the agent's exit
// included. (Before, the log kept it as written.)
func TestAgentErrorLogIsRedacted(t *testing.T) {
	const secret = "log-SECRET-value-0f1e2d3c"
	d, err := SessionDirs(t.TempDir(), "acp-x", "s1")
	if err != nil {
		t.Fatal(err)
	}
	red := secrets.NewRedactor(map[string][]byte{"s": []byte(secret)})
	p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", "printf 'whole " + secret + "; split log-SECR' >&2; sleep 0.2; printf 'ET-value-0f1e2d3c; cut log-SECRET-va' >&2"},
		Dir: d.Root, StderrLog: d.Stderr, Redact: red.NewStream()})
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	b, err := os.ReadFile(d.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	label := secrets.Label("s")
	if want := "whole " + label + "; split " + label + "; cut " + label; string(b) != want {
		t.Fatalf("the error log holds %q, want %q", b, want)
	}
}

// TestAgentLineOverTheBoundEndsIt: an agent writing a line longer than the bound without a
// newline is stopped, with the reason in its error output's tail, instead of growing exo's
// memory until the line ends (before, it was read whole, however long). Lines before it arrive.
func TestAgentLineOverTheBoundEndsIt(t *testing.T) {
	old := maxLineBytes
	maxLineBytes = 1 << 20
	t.Cleanup(func() { maxLineBytes = old })
	p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", "echo '{\"ok\":1}'; head -c 3000000 /dev/zero | tr '\\0' a; sleep 300"}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for l := range p.Lines() {
			got = append(got, string(l[:min(len(l), 20)]))
		}
	}()
	select {
	case <-p.Done():
	case <-time.After(2 * time.Minute):
		p.Kill()
		t.Fatal("the agent writing an endless line was not stopped")
	}
	<-done
	if len(got) != 1 || got[0] != `{"ok":1}` {
		t.Fatalf("lines %q", got)
	}
	if !strings.Contains(p.StderrTail(), "line of over 1 MiB") {
		t.Fatalf("stderr tail %q", p.StderrTail())
	}
}

// TestAgentErrorLogIsBounded: an agent writing to its error output without end fills its error
// log up to the bound and no further (exo writes the log, outside the agent's own file size
// limit); the agent is not blocked, and the tail exo keeps in memory has its last words.
func TestAgentErrorLogIsBounded(t *testing.T) {
	old := maxLogBytes
	maxLogBytes = 1 << 20
	t.Cleanup(func() { maxLogBytes = old })
	d, err := SessionDirs(t.TempDir(), "acp-x", "s1")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", "head -c 5000000 /dev/zero | tr '\\0' e >&2; echo last words >&2"},
		Dir: d.Root, StderrLog: d.Stderr, Redact: secrets.NewRedactor(map[string][]byte{"s": []byte("bounded-SECRET-1234")}).NewStream()})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Done():
	case <-time.After(2 * time.Minute):
		p.Kill()
		t.Fatal("the agent writing its error output did not finish")
	}
	fi, err := os.Stat(d.Stderr)
	if err != nil || fi.Size() > 1<<20+100 || fi.Size() < 1<<20 {
		t.Fatalf("error log size %v %v, want the bound", fi.Size(), err)
	}
	if !strings.Contains(p.StderrTail(), "last words") {
		t.Fatalf("the tail lost the last words")
	}
}
