package sandbox

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeTree writes files (slash path → content) under dir.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// walked returns the files WalkFiles reports under root (folders left out).
func walked(t *testing.T, dir, root string, opts WalkOptions) []string {
	t.Helper()
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var out []string
	err = WalkFiles(d, root, opts, func(rel string, e fs.DirEntry) error {
		if !e.IsDir() {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// gitListed is git's own answer: the files `git ls-files --cached --others --exclude-standard`
// lists in a fresh repository at dir (no global config, no global excludes).
func gitListed(t *testing.T, dir string) []string {
	t.Helper()
	home := t.TempDir()
	run := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("init", "-q")
	out := strings.Split(strings.TrimSuffix(run("ls-files", "-z", "--cached", "--others", "--exclude-standard"), "\x00"), "\x00")
	slices.Sort(out)
	return out
}

// ignoreTree has nested .gitignore files, negations, anchored and folder-only patterns,
// a wildcard over folders and .git/info/exclude.
var ignoreTree = map[string]string{
	".gitignore":              "*.log\n!keep.log\n/build/\ntmp\ndocs/**/*.bak\n# comment\n\n*.o\r\n",
	"a.go":                    "package a",
	"a.log":                   "x",
	"keep.log":                "x",
	"a.o":                     "x",
	"build/out.bin":           "x",
	"sub/build/kept.go":       "only the top build is anchored",
	"sub/tmp":                 "a file named tmp: ignored everywhere",
	"sub/.gitignore":          "!important.log\nsecret.txt\n*.gen\n!/keep.gen\n",
	"sub/important.log":       "re-included below",
	"sub/other.log":           "x",
	"sub/secret.txt":          "x",
	"sub/x.gen":               "x",
	"sub/keep.gen":            "x",
	"sub/deep/keep.gen":       "not anchored to deep",
	"sub/deep/.gitignore":     "!secret.txt\n",
	"sub/deep/secret.txt":     "re-included by the deeper file",
	"docs/a/b/c.bak":          "x",
	"docs/c.md":               "x",
	"docs/a/d.md":             "x",
	"notes/.gitignore":        "*\n!.gitignore\n!*.md\n",
	"notes/a.md":              "x",
	"notes/a.txt":             "x",
	"onlydir/tmp/x.go":        "tmp is a folder here",
	"space name/file one.txt": "x",
	".git/info/exclude":       "excluded-by-info\n",
	"excluded-by-info":        "x",
	"node_modules/m/index.js": "x",
}

// TestWalkFilesMatchesGit walks a tree of nested ignores and negations and compares the files
// with git's own listing; with IncludeIgnored every file but .git's is walked.
func TestWalkFilesMatchesGit(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, ignoreTree)
	got := walked(t, dir, ".", WalkOptions{})
	// The extra folders exo skips are not git's rule: git lists them.
	want := slices.DeleteFunc(gitListed(t, dir), func(p string) bool { return strings.HasPrefix(p, "node_modules/") })
	if !slices.Equal(got, want) {
		t.Fatalf("walk differs from git\n got %q\nwant %q", got, want)
	}
	for _, p := range []string{"sub/important.log", "sub/deep/secret.txt", "keep.log", "sub/build/kept.go", "sub/keep.gen", "notes/a.md"} {
		if !slices.Contains(got, p) {
			t.Errorf("%s should be walked (re-included or not matched)", p)
		}
	}
	all := walked(t, dir, ".", WalkOptions{IncludeIgnored: true})
	var want2 []string
	for p := range ignoreTree {
		if !strings.HasPrefix(p, ".git/") {
			want2 = append(want2, p)
		}
	}
	slices.Sort(want2)
	if !slices.Equal(all, want2) {
		t.Fatalf("IncludeIgnored: got %q\nwant %q", all, want2)
	}
}

// TestWalkFilesFromSubfolder starts below the top: the .gitignore files above still apply.
func TestWalkFilesFromSubfolder(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, ignoreTree)
	got := walked(t, dir, "sub", WalkOptions{})
	var want []string
	for _, p := range gitListed(t, dir) {
		if strings.HasPrefix(p, "sub/") {
			want = append(want, p)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

// TestWalkFilesLinks plants links to a folder and to a file outside: they are reported as links
// and never entered or read, and a .gitignore that is a link is not read.
func TestWalkFilesLinks(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	writeTree(t, outside, map[string]string{"secret/key.pem": "KEY", "ignore": "*.go\n"})
	writeTree(t, dir, map[string]string{"a.go": "x", "sub/b.go": "x"})
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "link"))
	os.Symlink(filepath.Join(outside, "ignore"), filepath.Join(dir, "sub", ".gitignore"))
	d, _ := OpenDir(dir)
	defer d.Close()
	var got []string
	err := WalkFiles(d, ".", WalkOptions{}, func(rel string, e fs.DirEntry) error {
		got = append(got, rel+":"+e.Type().String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.go:----------", "link:L---------", "sub:d---------", "sub/.gitignore:L---------", "sub/b.go:----------"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if err := WalkFiles(d, "link", WalkOptions{}, func(string, fs.DirEntry) error { return nil }); err == nil {
		t.Fatal("walking from a link succeeded")
	}
}

// TestWalkFilesIgnoredRootAskedByName walks from folders that are ignored: they were asked for
// by name, so their files are walked, and the .gitignore files inside them still apply.
func TestWalkFilesIgnoredRootAskedByName(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitignore":                  "build/\n",
		"build/out/a.txt":             "x",
		"build/out/.gitignore":        "*.tmp\n",
		"build/out/b.tmp":             "x",
		"node_modules/m/index.js":     "x",
		"node_modules/m/.gitignore":   "dist.js\n",
		"node_modules/m/dist.js":      "x",
		"node_modules/m/node_modules": "a file",
	})
	cases := map[string][]string{
		"build":          {"build/out/.gitignore", "build/out/a.txt"},
		"build/out":      {"build/out/.gitignore", "build/out/a.txt"},
		"node_modules/m": {"node_modules/m/.gitignore", "node_modules/m/index.js", "node_modules/m/node_modules"},
		".":              {".gitignore"},
	}
	for root, want := range cases {
		if got := walked(t, dir, root, WalkOptions{}); !slices.Equal(got, want) {
			t.Errorf("from %s: got %q, want %q", root, got, want)
		}
	}
}
