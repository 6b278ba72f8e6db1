package layering

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmePathRE matches a path README quotes: one outside the repository (../…), or one under
// a top-level folder of it.
var readmePathRE = regexp.MustCompile("`((?:\\.\\./|(?:store|harness|app|views|sandbox|themes|testdata)/)[A-Za-z0-9_./-]*)`")

// TestREADMEPathsAreInAClone: every file or folder README points at is in the repository,
// so a reader of a fresh clone finds it (README once sent readers to ../shared/DESIGN.md,
// which only the authors' machines have).
func TestREADMEPathsAreInAClone(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range readmePathRE.FindAllStringSubmatch(string(b), -1) {
		p := strings.TrimRight(m[1], ".")
		n++
		if strings.HasPrefix(p, "../") {
			t.Errorf("README points outside the repository: %s", p)
			continue
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
			t.Errorf("README points at %s, which the repository does not have", p)
		}
	}
	if n < 20 {
		t.Fatalf("found only %d paths in README: the pattern no longer matches how it quotes them", n)
	}
}
