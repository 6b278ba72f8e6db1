package sessions

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestNormalizeRemote: the spellings of one remote name one project, with no credentials.
func TestNormalizeRemote(t *testing.T) {
	for raw, want := range map[string]string{
		"https://github.com/org/repo.git":             "github.com/org/repo",
		"https://user:t0ken@GitHub.com:443/org/repo/": "github.com/org/repo",
		"ssh://git@github.com/org/repo":               "github.com/org/repo",
		"git@github.com:org/repo.git":                 "github.com/org/repo",
		"github.com:org/repo":                         "github.com/org/repo",
		"/srv/git/repo.git":                           "/srv/git/repo",
		"file:///srv/git/repo.git":                    "/srv/git/repo",
		"../relative/repo":                            "/relative/repo",
		"https://oauth2:glpat-XYZ@gitlab.example/a/b": "gitlab.example/a/b",
	} {
		if got := normalizeRemote(raw); got != want {
			t.Errorf("normalizeRemote(%q) = %q, want %q", raw, got, want)
		}
	}
	lines := "remote.upstream.url https://x.example/up/repo\nremote.origin.url git@y.example:me/repo.git\n"
	if got := remoteID(lines); got != "y.example/me/repo" {
		t.Errorf("origin first: %q", got)
	}
	if got := remoteID("remote.zeta.url https://z.example/z\nremote.beta.url https://b.example/b\n"); got != "b.example/b" {
		t.Errorf("first remote by name: %q", got)
	}
	if ProjectID(t.TempDir()) != "" || ProjectID("") != "" {
		t.Error("a folder without git has a project id")
	}
}

// ProjectID looks for a repository as git does (from a subfolder, in a bare repository) and
// runs no git where there is none.
func TestProjectIDFindsRepositoryAsGitDoes(t *testing.T) {
	t.Parallel()
	run := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	repo := t.TempDir()
	run(repo, "init", "-q")
	run(repo, "remote", "add", "origin", "https://user:tok@example.com/org/proj.git")
	sub := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := ProjectID(sub); got != "git:example.com/org/proj" {
		t.Fatalf("from a subfolder: %q", got)
	}
	bare := filepath.Join(t.TempDir(), "bare.git")
	run(filepath.Dir(bare), "init", "-q", "--bare", bare)
	run(bare, "remote", "add", "origin", "git@example.com:org/bare")
	if got := ProjectID(bare); got != "git:example.com/org/bare" {
		t.Fatalf("a bare repository: %q", got)
	}
	plain := t.TempDir()
	if inRepository(plain) || ProjectID(plain) != "" {
		t.Fatalf("a folder outside any repository: in one %v, id %q", inRepository(plain), ProjectID(plain))
	}
}
