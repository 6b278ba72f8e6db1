package service

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"exo/harness"
	"exo/harness/api"
	"exo/sandbox"
)

// BenchmarkAttemptsStreaming measures the time from asking for N attempts (the app's key press
// sends one StartAttempts) to every attempt streaming: each member's first model.requested.
// Each member forks a git worktree of a small repository.
func BenchmarkAttemptsStreaming(b *testing.B) {
	for _, n := range []int{2, 4, 8} {
		b.Run(fmt.Sprintf("attempts=%d", n), func(b *testing.B) {
			h, err := harness.Open(b.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			script := filepath.Join(b.TempDir(), "s.yaml")
			if err := os.WriteFile(script, []byte("name: s\nturns:\n  - text: \"an answer\"\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			var models []string
			for i := range n {
				name := fmt.Sprintf("m%d", i)
				if _, err := h.RegisterModel(harness.ModelSpec{Name: name, Provider: "scripted", BaseURL: script}); err != nil {
					b.Fatal(err)
				}
				models = append(models, name)
			}
			ws := b.TempDir()
			for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.email=e@x", "-c", "user.name=e", "commit", "-qm", "x"}} {
				if args[0] == "add" {
					for f := range 20 {
						if err := os.WriteFile(filepath.Join(ws, fmt.Sprintf("f%d.go", f)), []byte("package x\n"), 0o644); err != nil {
							b.Fatal(err)
						}
					}
				}
				cmd := exec.Command("git", args...)
				cmd.Dir = ws
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("git %v: %v %s", args, err, out)
				}
			}
			s, err := h.NewSession(harness.NewSessionOptions{Name: "bench", Workspace: ws})
			if err != nil {
				b.Fatal(err)
			}
			svc := New(h, Options{})
			defer svc.Close()
			ctx := context.Background()
			b.ResetTimer()
			for range b.N {
				ch, stop := h.SubscribeChanges(4096)
				set, err := svc.StartAttempts(ctx, api.AttemptsRequest{Session: s.ID, Models: models, Prompt: "go"})
				if err != nil {
					b.Fatal(err)
				}
				members := map[string]bool{}
				for _, r := range set.Rows {
					members[r.Session] = true
				}
				streaming := map[string]bool{}
				for len(streaming) < n {
					nt := <-ch
					for _, e := range nt.Events {
						if members[nt.Session] && e.Type == api.TypeModelRequested {
							streaming[nt.Session] = true
						}
					}
				}
				stop()
				b.StopTimer()
				for _, r := range set.Rows { // let every attempt end before the next set
					_, _ = svc.WaitTurn(ctx, r.Session, "")
				}
				b.StartTimer()
			}
		})
	}
}

// BenchmarkAttemptForks measures forking the members of a set (each a git worktree of a small
// repository with uncommitted changes, made under the sandbox's confinement), one at a time
// against as many at once as there are CPUs, in one run so the two compare on the same load.
func BenchmarkAttemptForks(b *testing.B) {
	for _, n := range []int{2, 4, 8} {
		for _, mode := range []struct {
			name  string
			width int
		}{{"serial", 1}, {"parallel", 0}} {
			b.Run(fmt.Sprintf("attempts=%d/%s", n, mode.name), func(b *testing.B) {
				h, err := harness.Open(b.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
				if err != nil {
					b.Fatal(err)
				}
				defer h.Close()
				ws := benchRepo(b)
				s, err := h.NewSession(harness.NewSessionOptions{Name: "bench", Workspace: ws})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := h.SnapshotWorkspace(s.ID, "", ""); err != nil {
					b.Fatal(err)
				}
				svc := New(h, Options{})
				defer svc.Close()
				svc.forkWidth = mode.width
				b.ResetTimer()
				for range b.N {
					if _, err := svc.forkMembers(s, 0, "att-"+harness.NewID()[6:16], n); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// benchRepo makes a git repository of 20 files with one commit and two uncommitted changes.
func benchRepo(b *testing.B) string {
	ws := b.TempDir()
	for f := range 20 {
		if err := os.WriteFile(filepath.Join(ws, fmt.Sprintf("f%d.go", f)), []byte("package x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.email=e@x", "-c", "user.name=e", "commit", "-qm", "x"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	for _, f := range []string{"f1.go", "new.txt"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("changed\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return ws
}
