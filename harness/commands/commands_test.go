package commands

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"exo/sandbox"
)

func TestDiscoverPrecedenceNamespacesAndFrontmatter(t *testing.T) {
	user, claude, project := t.TempDir(), t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(user, "fix.md"), []byte("user fix"), 0o644)
	os.WriteFile(filepath.Join(user, "only-user.md"), []byte("# Only in the user's folder\nbody"), 0o644)
	os.WriteFile(filepath.Join(claude, "fix.md"), []byte("claude fix"), 0o644)
	os.WriteFile(filepath.Join(project, "fix.md"), []byte("---\ndescription: Fix an issue\nargument-hint: ISSUE\nmodel: fast\n---\nFix issue #$1 now.\n"), 0o644)
	os.MkdirAll(filepath.Join(project, "git"), 0o755)
	os.WriteFile(filepath.Join(project, "git", "pr.md"), []byte("Open a PR"), 0o644)
	os.WriteFile(filepath.Join(project, "broken.md"), []byte("---\ndescription: [unclosed\n---\nx"), 0o644)
	cmds, problems := DiscoverIn([]sandbox.Folder{{Path: user}, {Path: claude}, sandbox.FolderIn(project, project), {Path: filepath.Join(project, "missing")}})
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name)
	}
	if !reflect.DeepEqual(names, []string{"fix", "git:pr", "only-user"}) || len(problems) != 1 {
		t.Fatalf("names %v problems %v", names, problems)
	}
	fix := cmds[0]
	if fix.Description != "Fix an issue" || fix.ArgumentHint != "ISSUE" || fix.Model != "fast" || fix.Expand("123 extra") != "Fix issue #123 now." {
		t.Fatalf("fix %+v → %q", fix, fix.Expand("123 extra"))
	}
	if cmds[2].Description != "Only in the user's folder" {
		t.Fatalf("description from the first line: %q", cmds[2].Description)
	}
}

func TestExpandArguments(t *testing.T) {
	c := Command{Body: "Compare $1 with $2; all: $ARGUMENTS; missing: [$3]"}
	if got := c.Expand(`a.go "b c.go"`); got != `Compare a.go with b c.go; all: a.go "b c.go"; missing: []` {
		t.Fatal(got)
	}
	if got := (Command{Body: "Review the code."}).Expand("focus on errors"); got != "Review the code.\n\nARGUMENTS: focus on errors" {
		t.Fatal(got)
	}
	if got := Words(` one 'two three'  "" four`); !reflect.DeepEqual(got, []string{"one", "two three", "", "four"}) {
		t.Fatalf("%q", got)
	}
}
