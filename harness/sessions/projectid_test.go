package sessions

import "testing"

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
