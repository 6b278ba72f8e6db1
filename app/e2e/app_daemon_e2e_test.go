package e2e

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"exo/harness/provider/providertest"
)

// copyExe copies the full exo binary (exo-full, which works without the thin exo) to path (mode
// 0755).
func copyExe(t *testing.T, path string) {
	t.Helper()
	in, err := os.Open(filepath.Join(filepath.Dir(exoBin), "exo-full")) // the full exo, which works alone
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(path+".tmp", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
}

// TestAppRestartsAKilledDaemon kills the daemon with SIGKILL while the app's turn waits on the
// model. The app runs from a copy of exo that is removed first, so it cannot start a new daemon
// for a while: it says the daemon is not answering, and a prompt typed then stays in the input.
// Once the binary is back the app starts a new daemon by itself, says so, shows the cut turn as
// interrupted and sends the held prompt, whose answer streams onto its screen.
func TestAppRestartsAKilledDaemon(t *testing.T) {
	t.Parallel()
	srv := providertest.NewScriptedChat(providertest.ChatReply{Hang: true})
	defer srv.Close()
	home, ws := t.TempDir(), t.TempDir()
	bin := filepath.Join(t.TempDir(), "exo")
	copyExe(t, bin)
	exoEnv(t, home, ws, nil, "model", "register", "slow", "--provider", "openai-compatible", "--base-url", srv.BaseURL())
	mustRunIn(t, home, ws, "new", "--name", "phoenix")
	scr := startTmux(t, 140, 40, "cd "+ws+" && EXO_HOME="+home+" "+bin+" attach phoenix --theme dark; sleep 60")
	scr.waitFor("the session loaded", contains(" phoenix │"))
	scr.keys("first prompt", "Enter")
	waitRequests(t, srv, 1, "the first turn")
	old := theDaemon(t, home)
	if err := os.Remove(bin); err != nil { // until it is back, no new daemon can start
		t.Fatal(err)
	}
	if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	scr.waitFor("the app offline", contains("not answering"))
	scr.keys("second prompt", "Enter")
	scr.waitFor("the prompt held in the input", func(s string) bool {
		return strings.Contains(s, "goes out when exo reconnects") && strings.Contains(s, "second prompt")
	})
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d model requests while no daemon ran", n)
	}
	srv.SetReplies(providertest.ChatReply{Text: "answered by the new daemon"})
	copyExe(t, bin)
	scr.waitFor("the held prompt's answer from the new daemon", contains("answered by the new daemon"))
	scr.waitFor("the cut turn shown as interrupted", contains("exo stopped during the turn"))
	if pids := daemonPids(t, home); len(pids) != 1 || pids[0] == old {
		t.Fatalf("daemons after the restart: %v (killed %d)", pids, old)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "second prompt") {
		t.Fatalf("%d model requests; the second does not carry the held prompt", len(reqs))
	}
	log := mustRunIn(t, home, ws, "log", "phoenix")
	if strings.Count(log, "turn.interrupted") != 1 || !strings.Contains(log, "second prompt") {
		t.Fatalf("log:\n%s", log)
	}
	if out := mustRunIn(t, home, ws, "verify"); !strings.HasPrefix(out, "ok: ") {
		t.Fatalf("verify: %s", out)
	}
	scr.keys("C-q")
}
