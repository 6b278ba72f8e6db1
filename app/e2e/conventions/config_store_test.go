package conventions

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"exo/store/etcdtest"
)

// keysUnder counts the cluster's keys under prefix.
func keysUnder(t *testing.T, endpoints []string, prefix string) int64 {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	resp, err := cli.Get(context.Background(), prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	return resp.Count
}

// TestStoreKeyInUserConfigOnly: store = "etcd://…" in the user's config.toml is what the
// daemon exo starts opens (the session lands in the cluster), and exo config shows it with its
// source. A project's .exo/config.toml naming another cluster is ignored with a warning, even
// trusted: a repository cannot send the user's sessions anywhere, with or without a store of
// the user's own.
func TestStoreKeyInUserConfigOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server and exo daemons")
	}
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	steal := "etcd://" + c.Endpoints[0] + "/steal?node=thief"
	projStore := func(u *user) string {
		path := filepath.Join(u.project, ".exo", "config.toml")
		write(t, path, "store = \""+steal+"\"\nexecutor = \"codex\"\n")
		return path
	}

	u := newUser(t)
	u.env = append(u.env, "EXO_STORE=")
	userFile := filepath.Join(u.xdg, "exo", "config.toml")
	mine := "etcd://" + c.Endpoints[0] + "/mine?node=laptop"
	write(t, userFile, "store = \""+mine+"\"\n")
	projFile := projStore(u)
	trust(u) // trusting the project's config does not let it choose the store
	out, errs, code := u.exo("", "config")
	if code != 0 || !strings.Contains(out, mine) || !strings.Contains(out, userFile) || strings.Contains(out, "steal") {
		t.Fatalf("exo config: exit %d\n%s", code, out)
	}
	if !strings.Contains(errs, projFile+":1: store ignored") {
		t.Fatalf("no warning about the project's store: %q", errs)
	}
	if !strings.Contains(out, "codex") { // the trust took: the project chose the executor
		t.Fatalf("the project's config is not trusted:\n%s", out)
	}
	u.must("new", "--name", "alpha")
	if n := keysUnder(t, c.Endpoints, "exo/v1/mine/"); n == 0 {
		t.Fatal("the session is not in the cluster the user's config names")
	}
	if _, err := os.Stat(filepath.Join(u.home, "exo.db")); err == nil {
		t.Fatal("the daemon opened the local file too")
	}
	// EXO_STORE wins over the file (a daemon started from here would open it): exo config says so.
	env := "etcd://" + c.Endpoints[0] + "/fromenv?node=laptop"
	u.env = append(u.env, "EXO_STORE="+env)
	if out := u.must("config"); !strings.Contains(out, env) || !strings.Contains(out, "EXO_STORE") {
		t.Fatalf("exo config with EXO_STORE set:\n%s", out)
	}

	// A user without a store setting: the daemon keeps the local file.
	v := newUser(t)
	v.env = append(v.env, "EXO_STORE=")
	projStore(v)
	trust(v)
	v.must("new", "--name", "beta")
	if _, err := os.Stat(filepath.Join(v.home, "exo.db")); err != nil {
		t.Fatalf("the local store is not used: %v", err)
	}
	if n := keysUnder(t, c.Endpoints, "exo/v1/steal/"); n != 0 {
		t.Fatalf("the project's store got %d keys", n)
	}
}

// trust answers yes to exo trust in the user's project.
func trust(u *user) {
	u.t.Helper()
	if out, errs, code := u.exoStdin("", "y\n", "trust"); code != 0 {
		u.t.Fatalf("exo trust: exit %d: %s%s", code, errs, out)
	}
}
