package conventions

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// bashComplete runs exo's bash completion script in a real bash, as Tab would for line, and
// returns the candidates.
func bashComplete(t *testing.T, u *user, line string) []string {
	t.Helper()
	if _, err := os.Stat("/usr/share/bash-completion/bash_completion"); err != nil {
		t.Fatal("bash-completion is not installed (.ci/run installs it): apt-get install bash-completion")
	}
	script := `source /usr/share/bash-completion/bash_completion
source <(exo completion bash)
COMP_LINE="$LINE"; COMP_POINT=${#COMP_LINE}
read -ra COMP_WORDS <<< "$COMP_LINE"
[[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
__start_exo
printf '%s\n' "${COMPREPLY[@]}"`
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = u.project
	cmd.Env = append(os.Environ(), append(u.env, "LINE="+line, "PATH="+filepath.Dir(exoBin)+":"+os.Getenv("PATH"))...)
	var stderr strings.Builder
	cmd.Stderr = &stderr // compopt complains outside a real completion: only stdout counts
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash completion of %q: %v\n%s%s", line, err, out, stderr.String())
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			got = append(got, l)
		}
	}
	return got
}

// has reports whether some candidate starts with want.
func has(got []string, want string) bool {
	for _, g := range got {
		if strings.HasPrefix(g, want) {
			return true
		}
	}
	return false
}

// TestBashCompletionAsksTheDaemon: bash's Tab, through the script exo completion bash prints,
// completes session names (archived ones left out), SESSION@SEQ of a session's prompts and
// model names, from a real daemon; the app never starts.
func TestBashCompletionAsksTheDaemon(t *testing.T) {
	u := newUser(t)
	u.model("writer", writeScript)
	u.must("new", "--name", "alpha")
	u.must("new", "--name", "beta")
	u.must("new", "--name", "gamma")
	u.must("session", "archive", "gamma")
	u.must("say", "alpha", "first prompt")
	u.must("say", "alpha", "second prompt")
	got := bashComplete(t, u, "exo attach ")
	if !has(got, "alpha") || !has(got, "beta") || has(got, "gamma") {
		t.Fatalf("exo attach <Tab>: %q", got)
	}
	if got := bashComplete(t, u, "exo -r be"); len(got) != 1 || got[0] != "beta" {
		t.Fatalf("exo -r be<Tab>: %q", got)
	}
	if got := bashComplete(t, u, "exo att"); !has(got, "attach") || has(got, "alpha") {
		t.Fatalf("exo att<Tab>: %q", got)
	}
	if got := bashComplete(t, u, "exo session rm al"); len(got) != 1 || got[0] != "alpha" {
		t.Fatalf("exo session rm al<Tab>: %q", got)
	}
	got = bashComplete(t, u, "exo fork alpha@")
	if !has(got, "alpha@2") || !has(got, "alpha@3") {
		t.Fatalf("exo fork alpha@<Tab>: %q", got)
	}
	if got := bashComplete(t, u, "exo run --model w"); len(got) != 1 || got[0] != "writer" {
		t.Fatalf("exo run --model w<Tab>: %q", got)
	}
	if got := bashComplete(t, u, "exo model default "); !has(got, "writer") {
		t.Fatalf("exo model default <Tab>: %q", got)
	}
	for _, shell := range []string{"zsh", "fish"} {
		if out := u.must("completion", shell); !strings.Contains(out, "__complete") {
			t.Fatalf("exo completion %s prints no script", shell)
		}
	}
}
