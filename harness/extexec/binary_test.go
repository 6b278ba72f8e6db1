package extexec

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBinaryFindsAndAsksItsVersion finds a program through its variable and runs its --version
// with a private HOME that is removed afterwards; a missing one is ErrNotFound-wrapped.
func TestBinaryFindsAndAsksItsVersion(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "agent")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\necho \"1.2.3 home=$HOME extra=$EXTRA\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	notFound := errors.New("agent not found")
	b := Binary{Command: "exo-no-such-agent", Package: "@x/agent", Pinned: "1.2.3", Env: "EXO_TEST_AGENT_BIN", CacheDir: "agent",
		NotFound: notFound, VersionEnv: func(home string) []string { return []string{"EXTRA=" + filepath.Base(home)} }}
	t.Setenv("EXO_TEST_AGENT_BIN", prog)
	got, err := b.Find()
	if err != nil || got != prog {
		t.Fatalf("find: %q %v", got, err)
	}
	v, err := b.Version(got)
	if err != nil || !strings.HasPrefix(v, "1.2.3 home=") {
		t.Fatalf("version: %q %v", v, err)
	}
	home := strings.Fields(strings.TrimPrefix(v, "1.2.3 home="))[0]
	if !strings.Contains(v, "extra="+filepath.Base(home)) {
		t.Fatalf("version env: %q", v)
	}
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Fatalf("the private HOME %s stayed: %v", home, err)
	}
	t.Setenv("EXO_TEST_AGENT_BIN", filepath.Join(dir, "missing"))
	if _, err := b.Find(); !errors.Is(err, notFound) {
		t.Fatalf("missing: %v", err)
	}
	t.Setenv("EXO_TEST_AGENT_BIN", "")
	t.Setenv("PATH", dir)
	t.Setenv("HOME", dir)
	if _, err := b.Find(); !errors.Is(err, notFound) || !strings.Contains(err.Error(), "@x/agent@1.2.3") {
		t.Fatalf("not installed: %v", err)
	}
}
