package service

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"exo/harness"
	"exo/harness/api"
	"exo/sandbox"
	"exo/store/etcdtest"
)

// daemonWithSandbox is daemonOn with the sandbox helper, for sessions that run commands.
func daemonWithSandbox(t *testing.T, endpoints []string, node string) (*harness.Harness, *Service) {
	t.Helper()
	url := fmt.Sprintf("etcd://%s/team?node=%s&lease=10s", strings.Join(endpoints, ","), node)
	h, err := harness.Open(t.TempDir(), harness.Options{NoSync: true, Store: url, SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatalf("open daemon %s: %v", node, err)
	}
	s := New(h, Options{})
	t.Cleanup(func() { s.Close(); h.Close() })
	return h, s
}

// runGit runs git in dir and fails the test on error.
func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// twoClones makes a repository with shared.txt and a clone of it at another path, whose
// remotes name one project spelt differently (the first with credentials).
func twoClones(t *testing.T) (wsA, wsB string) {
	t.Helper()
	root := t.TempDir()
	wsA, wsB = filepath.Join(root, "laptop", "proj"), filepath.Join(root, "server", "work", "proj-clone")
	os.MkdirAll(wsA, 0o755)
	runGit(t, wsA, "init", "-q")
	os.WriteFile(filepath.Join(wsA, "shared.txt"), []byte("base\n"), 0o644)
	runGit(t, wsA, "add", ".")
	runGit(t, wsA, "commit", "-qm", "base")
	runGit(t, root, "clone", "-q", wsA, wsB)
	runGit(t, wsA, "remote", "add", "origin", "https://deploy:s3cr3t-t0ken@Example.com/team/proj.git")
	runGit(t, wsB, "remote", "set-url", "origin", "git@example.com:team/proj")
	return wsA, wsB
}

// conflictsOf waits until a daemon's session list shows at least one conflict on each of ids
// (a list that fails, its cluster member just back, is tried again).
func conflictsOf(t *testing.T, s *Service, ids ...string) []api.SessionInfo {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		all, err := s.ListSessions(context.Background())
		ok := err == nil
		for _, id := range ids {
			in, found := peerInfo(all, id)
			ok = ok && found && in.Conflicts > 0
		}
		if ok {
			return all
		}
		if time.Now().After(deadline) {
			t.Fatalf("no conflict on %v in the list (%v): %+v", ids, err, all)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestConflictAcrossDaemons: two daemons on one cluster work in two clones of one repository
// at different paths (whose remotes are spelt differently, one with credentials). Both change
// one file; both daemons' session lists show the conflict on both sessions, the project id is
// the same on both and holds no credentials, and each conflict names the other daemon.
func TestConflictAcrossDaemons(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	ctx := context.Background()
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	ha, sa := daemonWithSandbox(t, c.Endpoints, "alpha")
	hb, sb := daemonWithSandbox(t, c.Endpoints, "beta")
	wsA, wsB := twoClones(t)

	a, err := sa.NewSession(ctx, api.NewSessionRequest{Name: "on-alpha", Workspace: wsA})
	if err != nil {
		t.Fatal(err)
	}
	b, err := sb.NewSession(ctx, api.NewSessionRequest{Name: "on-beta", Workspace: wsB})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*harness.Session{a, b} {
		if got := s.Settings[harness.ProjectIDKey]; got != "git:example.com/team/proj" {
			t.Fatalf("project id of %s: %q", s.Name, got)
		}
	}
	if _, err := ha.UserExec(ctx, a.ID, "echo from-alpha > shared.txt", harness.ExecOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := hb.UserExec(ctx, b.ID, "echo from-beta > shared.txt", harness.ExecOptions{}); err != nil {
		t.Fatal(err)
	}
	conflictsOf(t, sa, a.ID, b.ID)
	conflictsOf(t, sb, a.ID, b.ID)
	for _, x := range []struct {
		h         *harness.Harness
		id, other string
	}{{ha, a.ID, "beta"}, {hb, b.ID, "alpha"}} {
		evs, err := x.h.BranchEvents(x.id, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		var found []string
		for _, e := range evs {
			if e.Type == "conflict.detected" {
				found = append(found, string(e.Data))
			}
		}
		if len(found) != 1 || !strings.Contains(found[0], `"path":"shared.txt"`) || !strings.Contains(found[0], `"node":"`+x.other+`"`) {
			t.Fatalf("conflicts recorded on %s: %v", x.id, found)
		}
		for _, e := range evs {
			if strings.Contains(string(e.Data), "s3cr3t") {
				t.Fatalf("the remote's credentials are in event %s: %s", e.Type, e.Data)
			}
		}
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	resp, err := cli.Get(ctx, "", clientv3.WithFromKey())
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range resp.Kvs {
		if strings.Contains(string(kv.Key)+string(kv.Value), "s3cr3t") {
			t.Fatalf("the remote's credentials are stored in etcd under %s", kv.Key)
		}
	}
	// Another project on beta (no git: its path) never conflicts with them.
	other, _ := sb.NewSession(ctx, api.NewSessionRequest{Name: "other", Workspace: t.TempDir()})
	hb.UserExec(ctx, other.ID, "echo x > shared.txt", harness.ExecOptions{})
	all, _ := sb.ListSessions(ctx)
	if in, _ := peerInfo(all, other.ID); in.Conflicts != 0 {
		t.Fatalf("a session of another project conflicts: %+v", in)
	}
}

// TestConflictMadeWhileCutOff: beta changed a file, then lost its only member of a
// three-member cluster; meanwhile alpha changed the same file in its clone (alpha records the
// conflict on its own session). Beta's service starts while still cut off (its peer watch
// fails and retries); once the member is back, the watch announces alpha's session and beta
// records the conflict on its own session too, though no snapshot of alpha's came live.
func TestConflictMadeWhileCutOff(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-member etcd cluster")
	}
	t.Parallel()
	ctx := context.Background()
	c := etcdtest.Start(t, 3, etcdtest.Options{})
	ha, sa := daemonWithSandbox(t, c.Endpoints[1:], "alpha")
	wsA, wsB := twoClones(t)
	url := fmt.Sprintf("etcd://%s/team?node=beta&timeout=5s", c.Endpoints[0])
	hb, err := harness.Open(t.TempDir(), harness.Options{NoSync: true, Store: url, SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := hb.NewSession(harness.NewSessionOptions{Name: "on-beta", Workspace: wsB})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hb.UserExec(ctx, b.ID, "echo from-beta > shared.txt", harness.ExecOptions{}); err != nil {
		t.Fatal(err)
	}
	c.Kill(0)
	a, err := sa.NewSession(ctx, api.NewSessionRequest{Name: "on-alpha", Workspace: wsA})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ha.UserExec(ctx, a.ID, "echo from-alpha > shared.txt", harness.ExecOptions{}); err != nil {
		t.Fatal(err)
	}
	conflictsOf(t, sa, a.ID) // alpha's own; beta's is beta's to record
	var logs logBuffer
	sb := New(hb, Options{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	t.Cleanup(func() { sb.Close(); hb.Close() })
	waitLog(t, &logs, "watching other daemons' sessions failed; trying again")
	c.Restart(0)
	conflictsOf(t, sb, b.ID, a.ID)
	evs, err := hb.BranchEvents(b.Branch, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, e := range evs {
		if e.Type == "conflict.detected" {
			found = append(found, string(e.Data))
		}
	}
	if len(found) != 1 || !strings.Contains(found[0], `"path":"shared.txt"`) || !strings.Contains(found[0], `"node":"alpha"`) {
		t.Fatalf("conflicts recorded on beta's session: %v", found)
	}
}
