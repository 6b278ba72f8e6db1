package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/internal/hostiletest"
	"exo/harness/mcp"
	"exo/sandbox"
)

// trustRig is a service over a fresh home, and a workspace.
func trustRig(t *testing.T) (*Service, string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	svc := New(h, Options{})
	t.Cleanup(func() { svc.Close() })
	return svc, t.TempDir()
}

// TestProjectFilesSpecialRefused: .mcp.json, .exo/settings.json or .exo/settings.local.json as
// a named pipe (the audit's exo trust --show and exo mcp ls hung on one), a socket, a device or
// a link to /dev/zero (memory grew without limit): exo trust and the MCP loader answer at once
// with an error naming the file.
func TestProjectFilesSpecialRefused(t *testing.T) {
	svc, ws := trustRig(t)
	for _, rel := range []string{".mcp.json", ".exo/settings.json", ".exo/settings.local.json"} {
		for _, kind := range hostiletest.Kinds {
			if !hostiletest.Plant(t, filepath.Join(ws, rel), kind) {
				continue
			}
			hostiletest.Within(t, "exo trust with "+rel+" "+string(kind), func() {
				_, err := svc.ProjectTrust(context.Background(), ws)
				if err == nil || !strings.Contains(err.Error(), filepath.Base(rel)) {
					t.Errorf("%s as %s: %v, want an error naming it", rel, kind, err)
				}
			})
			if rel == ".mcp.json" {
				hostiletest.Within(t, "loading MCP servers with "+string(kind), func() {
					if _, err := mcp.Load(ws, ""); err == nil {
						t.Errorf(".mcp.json as %s loaded", kind)
					}
				})
			}
			os.Remove(filepath.Join(ws, rel))
		}
	}
}

// TestProjectFilesRaceSwappedFolder: .exo is swapped for a link to an outside folder whose
// settings.json names a hook, in a loop, while exo reads the project's trust: the outside hook
// is never reported as the project's.
func TestProjectFilesRaceSwappedFolder(t *testing.T) {
	svc, ws := trustRig(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "settings.json"), []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"OUTSIDE-HOOK"}]}]}}`), 0o644)
	os.MkdirAll(filepath.Join(ws, ".exo"), 0o755)
	os.WriteFile(filepath.Join(ws, ".exo", "settings.json"), []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"inside"}]}]}}`), 0o644)
	swaps := hostiletest.SwapLoop(t, ws, ".exo", outside)
	n, inside := 0, 0
	for start := time.Now(); hostiletest.Keep(start, n, inside); n++ {
		p, _ := svc.ProjectTrust(context.Background(), ws)
		for _, f := range p.Files {
			if strings.Contains(strings.Join(f.Runs, " "), "OUTSIDE") {
				t.Fatalf("round %d (after %d swaps) read the outside settings: %+v", n, swaps.Load(), f)
			}
			if strings.Contains(strings.Join(f.Runs, " "), "inside") {
				inside++
			}
		}
	}
	if inside == 0 {
		t.Fatalf("the real settings were never read in %d rounds: the test proves nothing", n)
	}
	t.Logf("%d rounds against %d swaps held", n, swaps.Load())
}
