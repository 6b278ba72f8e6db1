package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// gitHooks are the hook names planted; each writes a marker when git runs it.
var gitHooks = []string{
	"post-checkout", "pre-commit", "post-commit", "reference-transaction", "post-index-change",
	"pre-auto-gc", "post-merge", "post-rewrite", "fsmonitor-watchman", "pre-push", "push-to-checkout",
}

// markerScript writes an executable script that records name in markers and passes stdin on
// (so a filter still produces content).
func markerScript(t *testing.T, dir, markers, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	body := fmt.Sprintf("#!/bin/sh\ntouch %s\ncat 2>/dev/null\nexit 0\n", quote(filepath.Join(markers, name)))
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// plantGitVectors plants, in the user repository ws, every config-driven way to make git run
// a program: hooks in .git/hooks and in a core.hooksPath folder, fsmonitor, clean/smudge and
// process filters named by .gitattributes (also through an included config file), textconv and
// external diff drivers, a merge driver, pager, editor, ssh command, askpass, credential
// helper, alternate refs command, and gc's hook. It returns the number of vectors planted.
func plantGitVectors(t *testing.T, ws, markers string) int {
	t.Helper()
	bin := filepath.Join(ws, ".evil")
	os.MkdirAll(bin, 0o755)
	hooksPath := filepath.Join(ws, ".githooks")
	os.MkdirAll(hooksPath, 0o755)
	for _, h := range gitHooks {
		markerScript(t, filepath.Join(ws, ".git", "hooks"), markers, h)
		hook := fmt.Sprintf("#!/bin/sh\ntouch %s\n", quote(filepath.Join(markers, "hookspath-"+h)))
		os.WriteFile(filepath.Join(hooksPath, h), []byte(hook), 0o755)
	}
	cfg := map[string]string{
		"core.fsmonitor":             markerScript(t, bin, markers, "fsmonitor"),
		"filter.evil.clean":          markerScript(t, bin, markers, "filter-clean"),
		"filter.evil.smudge":         markerScript(t, bin, markers, "filter-smudge"),
		"filter.evil.required":       "true",
		"filter.proc.process":        markerScript(t, bin, markers, "filter-process"),
		"diff.evil.textconv":         markerScript(t, bin, markers, "textconv"),
		"diff.evil.command":          markerScript(t, bin, markers, "diff-command"),
		"merge.evil.driver":          markerScript(t, bin, markers, "merge-driver"),
		"core.pager":                 markerScript(t, bin, markers, "pager"),
		"pager.status":               markerScript(t, bin, markers, "pager-status"),
		"core.editor":                markerScript(t, bin, markers, "editor"),
		"core.sshCommand":            markerScript(t, bin, markers, "ssh-command"),
		"core.askPass":               markerScript(t, bin, markers, "askpass"),
		"credential.helper":          "!" + markerScript(t, bin, markers, "credential-helper"),
		"core.alternateRefsCommand":  markerScript(t, bin, markers, "alternate-refs"),
		"uploadpack.packObjectsHook": markerScript(t, bin, markers, "pack-objects-hook"),
		"gc.auto":                    "1",
		"gc.autoDetach":              "false",
		"include.path":               filepath.Join(bin, "included.cfg"),
	}
	keys := make([]string, 0, len(cfg))
	for k := range cfg {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		userGit(t, ws, "config", k, cfg[k])
	}
	inc := fmt.Sprintf("[filter \"inc\"]\n\tclean = %s\n\tsmudge = %s\n[diff \"inc\"]\n\ttextconv = %s\n",
		markerScript(t, bin, markers, "included-clean"), markerScript(t, bin, markers, "included-smudge"),
		markerScript(t, bin, markers, "included-textconv"))
	os.WriteFile(filepath.Join(bin, "included.cfg"), []byte(inc), 0o644)
	os.WriteFile(filepath.Join(ws, ".gitattributes"), []byte("* filter=evil diff=evil merge=evil\n*.txt filter=inc diff=inc\n*.proc filter=proc\n"), 0o644)
	write(t, ws, "x.proc", "process me\n")
	userGit(t, ws, "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "add", "-A")
	userGit(t, ws, "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "commit", "-qm", "planted")
	userGit(t, ws, "config", "core.hooksPath", hooksPath)
	nested := plantNestedRepoVectors(t, ws, markers)
	write(t, ws, "edit.txt", "uncommitted edit after the plant\n")
	write(t, ws, "untracked.txt", "untracked\n")
	clearMarkers(t, markers)
	enablers := 4 // filter.evil.required, gc.auto, gc.autoDetach and include.path run nothing themselves.
	// + the included file's three drivers and the nested repositories' vectors.
	return 2*len(gitHooks) + len(cfg) - enablers + 3 + nested
}

// plantNestedRepoVectors plants repositories inside the workspace with config of their own,
// which no override read from the outer repository's config reaches: sub/, committed in the
// outer repository as a submodule (a gitlink, with an update command in the outer config),
// and nested/, an untracked repository. Each has clean, smudge and process filters, a textconv
// driver and an fsmonitor named by its own config and .gitattributes, and hooks; each has an
// uncommitted edit, so a git that enters it hashes the file through the filter. It returns the
// number of vectors.
func plantNestedRepoVectors(t *testing.T, ws, markers string) int {
	t.Helper()
	n := 0
	plant := func(dir string) {
		repo := filepath.Join(ws, dir)
		write(t, repo, "s.txt", "committed\n")
		write(t, repo, ".gitattributes", "* filter=nf diff=nd\n")
		userGit(t, repo, "init", "-q", "-b", "main")
		userGit(t, repo, "add", "-A")
		userGit(t, repo, "commit", "-qm", "nested")
		bin := filepath.Join(ws, ".evil-"+dir)
		os.MkdirAll(bin, 0o755)
		for _, kv := range [][2]string{
			{"filter.nf.clean", "filter-clean"}, {"filter.nf.smudge", "filter-smudge"}, {"filter.nf.process", "filter-process"},
			{"diff.nd.textconv", "textconv"}, {"core.fsmonitor", "fsmonitor"},
		} {
			userGit(t, repo, "config", kv[0], markerScript(t, bin, markers, dir+"-"+kv[1]))
			n++
		}
		hooks := filepath.Join(repo, ".git", "hooks")
		for _, h := range []string{"post-checkout", "post-index-change", "reference-transaction"} {
			body := fmt.Sprintf("#!/bin/sh\ntouch %s\n", quote(filepath.Join(markers, dir+"-hook-"+h)))
			if err := os.WriteFile(filepath.Join(hooks, h), []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	plant("sub")
	update := markerScript(t, filepath.Join(ws, ".evil"), markers, "submodule-update")
	write(t, ws, ".gitmodules", "[submodule \"sub\"]\n\tpath = sub\n\turl = ./sub\n")
	userGit(t, ws, "config", "submodule.sub.update", "!"+update) // git refuses a command in .gitmodules itself.
	n++
	userGit(t, ws, "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "add", "-A")
	userGit(t, ws, "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "commit", "-qm", "submodule")
	plant("nested")
	write(t, ws, "sub/s.txt", "uncommitted edit in the submodule\n")
	write(t, ws, "nested/s.txt", "uncommitted edit in the nested repository\n")
	return n
}

// clearMarkers empties the marker folder (the plant itself may have fired some).
func clearMarkers(t *testing.T, markers string) {
	ents, _ := os.ReadDir(markers)
	for _, e := range ents {
		os.Remove(filepath.Join(markers, e.Name()))
	}
}

// firedMarkers lists the markers written.
func firedMarkers(markers string) []string {
	ents, _ := os.ReadDir(markers)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// TestGitVectorsAreLive is the control: plain git (as exo ran it before) over the planted
// repository runs the planted programs, so the test below can fail.
func TestGitVectorsAreLive(t *testing.T) {
	ws := newRepo(t)
	markers := t.TempDir()
	plantGitVectors(t, ws, markers)
	cmd := exec.Command("git", "worktree", "add", "--quiet", "--detach", filepath.Join(t.TempDir(), "wt"), "HEAD")
	cmd.Dir, cmd.Env = ws, append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	cmd.CombinedOutput()
	userGit(t, ws, "status", "--porcelain")
	userGit(t, ws, "diff")
	// git status reaches into the submodule, but hashes its edited file (through the filter)
	// only when the index entry is racily clean, which depends on timestamps; a diff in the
	// submodule always reads the file through it.
	userGit(t, filepath.Join(ws, "sub"), "diff")
	fired := strings.Join(firedMarkers(markers), " ")
	for _, want := range []string{"hookspath-post-checkout", "fsmonitor", "filter-smudge", "filter-process", "included-clean", "included-textconv", "sub-filter-process"} {
		if !strings.Contains(fired, want) {
			t.Errorf("plain git did not run the planted %s (fired: %s)", want, fired)
		}
	}
}

// TestGitNeverRunsRepositoryCode plants every vector and then runs everything exo does with
// git over a workspace: snapshot, restore, restore of paths, reading a file at a snapshot, fork
// (worktree add and replay of uncommitted files), a snapshot of the fork, and its removal. No
// planted program may run.
func TestGitNeverRunsRepositoryCode(t *testing.T) {
	ws := newRepo(t)
	markers := t.TempDir()
	n := plantGitVectors(t, ws, markers)
	snap, err := NewSnapshotter(ws, ShadowDir(t.TempDir(), ws), SnapshotOptions{LooseObjectLimit: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { snap.Close() })
	s1, err := snap.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	write(t, ws, "edit.txt", "changed again\n")
	write(t, ws, "x.proc", "changed\n")
	if _, err := snap.Snapshot(); err != nil {
		t.Fatal(err)
	}
	if _, err := snap.Restore(s1.Commit); err != nil {
		t.Fatal(err)
	}
	if err := snap.RestorePaths(s1.Commit, []string{"x.proc", "edit.txt"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := snap.FileAt(s1.Commit, "edit.txt"); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "fork")
	kind, err := CloneWorkspace(ws, dst, CloneOptions{Caps: testCaps()})
	if err != nil || kind != KindWorktree {
		t.Fatalf("fork: %s %v", kind, err)
	}
	checkFile(t, dst, "edit.txt", "uncommitted edit after the plant\n")
	checkFile(t, dst, "sub/s.txt", "uncommitted edit in the submodule\n")
	checkFile(t, dst, "nested/s.txt", "uncommitted edit in the nested repository\n")
	fsnap, err := NewSnapshotter(dst, ShadowDir(t.TempDir(), dst), SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fsnap.Snapshot(); err != nil {
		t.Fatal(err)
	}
	fsnap.Close()
	if err := RemoveWorkspace(dst); err != nil {
		t.Fatal(err)
	}
	snap.Close() // waits for the background gc (gc.auto=1 in the repo, LooseObjectLimit 1 here).
	if fired := firedMarkers(markers); len(fired) > 0 {
		t.Fatalf("git run by exo ran planted programs: %v", fired)
	}
	t.Logf("%d planted vectors, none ran", n)
}

// TestCloneIgnoresConfigPlantedAfterListing: exo reads the repository's config to disarm what
// it names; a config rewritten after that read (by a background task of the agent, between
// exo's git commands) must still run nothing. The runner here is made before the plant, as if
// the rewrite won that race.
func TestCloneIgnoresConfigPlantedAfterListing(t *testing.T) {
	ws := newRepo(t)
	markers := t.TempDir()
	write(t, ws, ".gitattributes", "* filter=late diff=late\n")
	userGit(t, ws, "add", ".gitattributes")
	userGit(t, ws, "commit", "-qm", "attributes")
	g, ok := repoTop(ws)
	if !ok {
		t.Fatal("not a repository top")
	}
	bin := filepath.Join(ws, ".late")
	os.MkdirAll(bin, 0o755)
	for _, kv := range [][2]string{{"filter.late.clean", "late-clean"}, {"filter.late.smudge", "late-smudge"},
		{"filter.late.process", "late-process"}, {"diff.late.textconv", "late-textconv"}} {
		userGit(t, ws, "config", kv[0], markerScript(t, bin, markers, kv[1]))
	}
	write(t, ws, "edit.txt", "edited after the plant\n")
	clearMarkers(t, markers)
	dst := filepath.Join(t.TempDir(), "fork")
	if err := cloneWorktree(g, ws, dst, nil, CloneOptions{Caps: testCaps()}); err != nil {
		t.Fatal(err)
	}
	checkFile(t, dst, "edit.txt", "edited after the plant\n")
	checkFile(t, dst, "keep.txt", "keep\n")
	if fired := firedMarkers(markers); len(fired) > 0 {
		t.Fatalf("a config planted after exo read it ran: %v", fired)
	}
}
