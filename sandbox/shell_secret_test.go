package sandbox

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tmpHolds lists the files under dir whose bytes hold needle.
func tmpHolds(t *testing.T, dir, needle string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(needle)) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestCommandFileLeavesNoSecret: a command holding a secret (the model was given one) is written
// to the shell's command file to be sourced; once the command ends — normally, by a timeout, by
// a cancel, or with the shell exiting — no file in the sandbox's tmp dir holds it. The control
// shows the file held it while the command ran.
func TestCommandFileLeavesNoSecret(t *testing.T) {
	cfg := testConfig(t)
	sh := newTestShell(t, cfg)
	const secret = "tok-9f3a7c41e2"
	// The control: the command file held the secret while the command ran (grep's pattern is
	// cut in two so only the assignment matches).
	r := run(t, sh, "V="+secret+"; grep -c '9f3a7''c41e2' \"$TMPDIR/"+ctlDirName+"/cmd.sh\"", RunOptions{})
	if strings.TrimSpace(r.Output) != "1" {
		t.Fatalf("control: the command file did not hold the command while it ran: %+v", r)
	}
	if held := tmpHolds(t, cfg.TmpDir, secret); len(held) > 0 {
		t.Fatalf("after a normal end the secret stays on disk in %v", held)
	}
	cancelSoon := func() context.Context {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		time.AfterFunc(500*time.Millisecond, cancel)
		return ctx
	}
	ends := []struct {
		name string
		ctx  func() context.Context
		cmd  string
		opts RunOptions
	}{
		{"timeout", context.Background, "V=" + secret + "; sleep 60", RunOptions{Timeout: 300 * time.Millisecond}},
		{"cancel", cancelSoon, "V=" + secret + "; sleep 60", RunOptions{}},
		{"shell exit", context.Background, "V=" + secret + "; exit 3", RunOptions{}},
		{"failing", context.Background, "V=" + secret + "; false", RunOptions{}},
	}
	for _, e := range ends {
		if _, err := sh.Run(e.ctx(), e.cmd, e.opts); err != nil {
			t.Fatalf("%s: %v", e.name, err)
		}
		if held := tmpHolds(t, cfg.TmpDir, secret); len(held) > 0 {
			t.Fatalf("after a %s the secret stays on disk in %v", e.name, held)
		}
	}
	if r := run(t, sh, "echo still-works", RunOptions{}); !strings.Contains(r.Output, "still-works") {
		t.Fatalf("the shell no longer runs commands: %+v", r)
	}
}
