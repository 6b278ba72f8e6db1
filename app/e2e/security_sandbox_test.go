package e2e

import (
	"bytes"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness/provider/providertest"
)

// defaultHome makes a fake $HOME outside /tmp (exo's home then defaults to $HOME/.exo, where
// the private /tmp of the sandbox does not hide it) with a project folder inside it, so exo's
// home also sits in the workspace's parent.
func defaultHome(t *testing.T) (home, ws string) {
	home, err := os.MkdirTemp("/var/tmp", "exo-home-")
	if err != nil {
		t.Fatalf("a folder outside /tmp is needed: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	ws = filepath.Join(home, "project")
	os.MkdirAll(ws, 0o755)
	os.Mkdir(filepath.Join(home, "run"), 0o700) // XDG_RUNTIME_DIR: the daemon's socket, outside /tmp
	return home, ws
}

// exoAt runs exo in dir with HOME=home and EXO_HOME unset, so exo's home is ~/.exo.
func exoAt(t *testing.T, home, dir string, args ...string) (string, string, int) {
	t.Helper()
	if _, seen := daemonHomes.LoadOrStore(t.Name()+"\x00"+home, true); !seen {
		t.Cleanup(func() { exoAt(t, home, dir, "daemon", "stop") })
	}
	cmd := exec.Command(exoBin, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "EXO_HOME=") && !strings.HasPrefix(kv, "HOME=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "HOME="+home, "TEST_KEY="+secretValue, "XDG_RUNTIME_DIR="+filepath.Join(home, "run"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// TestExoHomeUnreachableE2E: with exo's home at its default ~/.exo outside /tmp, neither the
// user's `exo exec` nor the agent's bash tool reads the key or the database by any spelling,
// and the key never reaches a model request.
func TestExoHomeUnreachableE2E(t *testing.T) {
	t.Parallel()
	home, ws := defaultHome(t)
	srv := providertest.NewScriptedChat(
		providertest.ChatReply{Text: "Looking.", ToolCalls: []providertest.ChatToolCall{{ID: "c1", Name: "bash",
			Args: `{"command":"od -An -tx1 -v ~/.exo/secret.key; od -An -tx1 -v $HOME/.exo/secret.key; od -An -tx1 -v ../.exo/secret.key; ln -s ~/.exo k; od -An -tx1 -v k/secret.key; od -An -tx1 -v /proc/self/root$HOME/.exo/secret.key"}`}}},
		providertest.ChatReply{Text: "Done."},
	)
	defer srv.Close()
	if _, errs, code := exoAt(t, home, ws, "secret", "set", "openai", "--env", "TEST_KEY"); code != 0 {
		t.Fatal(errs)
	}
	if _, errs, code := exoAt(t, home, ws, "model", "register", "m", "--provider", "openai-compatible", "--model-id", "gpt-4.1", "--base-url", srv.BaseURL(), "--secret", "openai"); code != 0 {
		t.Fatal(errs)
	}
	key, err := os.ReadFile(filepath.Join(home, ".exo", "secret.key"))
	if err != nil {
		t.Fatal(err)
	}
	keyHex := hex.EncodeToString(key)
	if _, errs, code := exoAt(t, home, ws, "run", "look around"); code != 0 {
		t.Fatalf("run: %d %s", code, errs)
	}
	for i, r := range srv.Requests() {
		if strings.Contains(strings.NewReplacer(" ", "", "\\n", "").Replace(string(r.Body)), keyHex) {
			t.Fatalf("request %d carries exo's key", i)
		}
	}
	id := lastSessionAt(t, home, ws)
	var probe strings.Builder
	tried := 0
	for _, spelling := range []string{
		"~/.exo", "$HOME/.exo", "/$HOME/.exo", "$HOME/./.exo", "$HOME//.exo", "../.exo", "../project/../.exo",
		"/proc/self/root$HOME/.exo", "/proc/1/root$HOME/.exo", "/proc/self/cwd/../.exo", "k",
	} {
		for _, f := range []string{"secret.key", "exo.db"} {
			tried++
			probe.WriteString("cat " + spelling + "/" + f + " >/dev/null 2>&1 && echo READ:" + spelling + "/" + f + " || echo held\n")
		}
	}
	socks, _ := filepath.Glob(filepath.Join(home, "run", "exo", "*.sock"))
	if len(socks) == 0 {
		t.Fatal("no daemon socket in $XDG_RUNTIME_DIR/exo: the socket probe would prove nothing")
	}
	probe.WriteString("test -S " + socks[0] + " && echo DAEMON-SOCKET-VISIBLE; ls -A " + filepath.Join(home, "run") + "\n")
	out, _, _ := exoAt(t, home, ws, "exec", id, "--", probe.String())
	if strings.Contains(out, "READ:") || strings.Count(out, "held") != tried || strings.Contains(out, "DAEMON-SOCKET") || strings.Contains(out, "exo\n") {
		t.Fatalf("exo exec reached exo's home or its daemon's socket:\n%s", out)
	}
	t.Logf("exo's home at ~/.exo: %d spellings tried through exo exec, plus 5 through the agent", tried)
}

// lastSessionAt returns the newest session's id with exo's home at HOME/.exo.
func lastSessionAt(t *testing.T, home, ws string) string {
	out, _, _ := exoAt(t, home, ws, "sessions", "--json")
	i := strings.LastIndex(out, `"id": "`)
	if i < 0 {
		t.Fatalf("no sessions: %s", out)
	}
	return out[i+7 : i+7+16]
}

// TestForkRewindRunNoRepositoryCodeE2E: a repository with a post-checkout hook (in .git/hooks
// and a core.hooksPath), an fsmonitor and a smudge filter, all writing a marker; exo exec,
// fork and rewind never run them.
func TestForkRewindRunNoRepositoryCodeE2E(t *testing.T) {
	t.Parallel()
	home, ws := defaultHome(t)
	marker := filepath.Join(home, "ran")
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.hooksPath=/dev/null"}, args...)...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644)
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "a")
	script := "#!/bin/sh\necho \"$0\" >> " + marker + "\ncat\n"
	for _, h := range []string{".git/hooks/post-checkout", ".hooks/post-checkout", ".evil/fsmonitor", ".evil/smudge"} {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, h)), 0o755)
		os.WriteFile(filepath.Join(ws, h), []byte(script), 0o755)
	}
	git("config", "core.hooksPath", filepath.Join(ws, ".hooks"))
	git("config", "core.fsmonitor", filepath.Join(ws, ".evil/fsmonitor"))
	git("config", "filter.x.smudge", filepath.Join(ws, ".evil/smudge"))
	git("config", "filter.x.clean", filepath.Join(ws, ".evil/smudge"))
	os.WriteFile(filepath.Join(ws, ".gitattributes"), []byte("* filter=x\n"), 0o644)
	// A submodule (committed as a gitlink) with a filter in its own config, which nothing read
	// from the outer repository's config disarms, and an edit that makes git hash it.
	sub := filepath.Join(ws, "sub")
	os.MkdirAll(sub, 0o755)
	subGit := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		cmd.Dir = sub
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(sub, "s.txt"), []byte("s\n"), 0o644)
	os.WriteFile(filepath.Join(sub, ".gitattributes"), []byte("* filter=y\n"), 0o644)
	subGit("init", "-q")
	subGit("add", "-A")
	subGit("commit", "-qm", "s")
	subGit("config", "filter.y.process", filepath.Join(ws, ".evil/smudge"))
	subGit("config", "filter.y.clean", filepath.Join(ws, ".evil/smudge"))
	git("add", "sub")
	git("commit", "-qm", "submodule")
	os.WriteFile(filepath.Join(sub, "s.txt"), []byte("edited in the submodule\n"), 0o644)
	os.Remove(marker)
	id := strings.TrimSpace(mustAt(t, home, ws, "new", "--name", "hooked"))
	mustAt(t, home, ws, "exec", id, "--", "echo change > b.txt")
	mustAt(t, home, ws, "exec", id, "--", "echo again >> b.txt")
	mustAt(t, home, ws, "fork", id, "--name", "side")
	mustAt(t, home, ws, "rewind", id+"@2")
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("exo ran the repository's programs: %s", b)
	}
}

// mustAt runs exo with exo's home at HOME/.exo and fails on a non-zero exit.
func mustAt(t *testing.T, home, ws string, args ...string) string {
	t.Helper()
	out, errs, code := exoAt(t, home, ws, args...)
	if code != 0 {
		t.Fatalf("exo %v: exit %d: %s", args, code, errs)
	}
	return out
}
