package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"exo/harness/provider/providertest"
	"exo/store/etcdtest"
)

// etcdDaemon is an `exo daemon --store etcd://…` process started by a test.
type etcdDaemon struct {
	cmd  *exec.Cmd
	home string
	done chan struct{}
}

// startEtcdDaemon runs `exo daemon --store url` for home (the clients of the test get the same
// URL in EXO_STORE, so one they started by themselves would open the same store) and waits until
// it answers.
func startEtcdDaemon(t *testing.T, home, url string, env ...string) *etcdDaemon {
	t.Helper()
	log, err := os.OpenFile(filepath.Join(home, "test-daemon.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exoBin, "--home", home, "daemon", "--store", url, "--idle", "-1s")
	cmd.Env = append(append(os.Environ(), "EXO_HOME="+home, "EXO_STORE="+url), env...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &etcdDaemon{cmd: cmd, home: home, done: make(chan struct{})}
	go func() { cmd.Wait(); log.Close(); close(d.done) }()
	t.Cleanup(func() { d.kill() })
	deadline := time.Now().Add(60 * time.Second)
	for {
		st := exec.Command(exoBin, "--home", home, "daemon", "status")
		st.Env = append(os.Environ(), "EXO_HOME="+home, "EXO_STORE="+url)
		if st.Run() == nil {
			return d
		}
		select {
		case <-d.done:
			b, _ := os.ReadFile(filepath.Join(home, "test-daemon.log"))
			t.Fatalf("exo daemon --store exited:\n%s", b)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("exo daemon --store did not answer in 60s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// kill sends SIGKILL and waits for the process to end.
func (d *etcdDaemon) kill() {
	_ = d.cmd.Process.Signal(syscall.SIGKILL)
	<-d.done
}

// sessionsOf lists home's sessions as `exo sessions --json` prints them.
func sessionsOf(t *testing.T, home string, env []string) map[string]map[string]any {
	t.Helper()
	out, errs, code := exoEnv(t, home, "", env, "sessions", "--json")
	if code != 0 {
		t.Fatalf("exo sessions: exit %d: %s", code, errs)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("exo sessions --json: %v\n%s", err, out)
	}
	by := map[string]map[string]any{}
	for _, r := range rows {
		by[r["name"].(string)] = r
	}
	return by
}

// TestEtcdDaemonsEndToEnd runs two `exo daemon --store etcd://…` on one cluster that serves
// clients only over TLS with client certificates and has auth on, given through the URL's
// options. alpha runs two sessions; beta lists them with their node, cannot take over while
// alpha lives; alpha is SIGKILLed while a turn waits on the model and while appends to its other
// session go on; beta takes the first over (the cut turn recorded as interrupted) and writes to
// it; alpha restarts, reclaims the second (nobody took it) and is refused the first. Every
// acknowledged append is there, the hash chains verify, and the store password is in no file of
// either home.
func TestEtcdDaemonsEndToEnd(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts an etcd server and two daemons")
	}
	srv := providertest.NewScriptedChat(providertest.ChatReply{Hang: true})
	defer srv.Close()
	dir := t.TempDir()
	certs := etcdtest.NewCerts(t, dir)
	const password = "e2e-Pa55w0rd-xyzzy"
	c := etcdtest.Start(t, 1, etcdtest.Options{TLS: &certs, User: "exo", Password: password})
	pw := filepath.Join(dir, "pw")
	os.WriteFile(pw, []byte(password+"\n"), 0o600)
	url := func(node string) string {
		lease := "10s" // beta keeps its lease under load
		if node == "alpha" {
			lease = "2s" // alpha's sessions are free soon after it is killed
		}
		return fmt.Sprintf("etcd://%s/e2e?node=%s&lease=%s&timeout=20s&cacert=%s&cert=%s&key=%s&user=exo&password-file=%s",
			c.Endpoints[0], node, lease, certs.CA, certs.ClientCert, certs.ClientKey, pw)
	}
	homeA, homeB, ws1, ws2 := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	envA, envB := []string{"EXO_STORE=" + url("alpha")}, []string{"EXO_STORE=" + url("beta")}
	alpha := startEtcdDaemon(t, homeA, url("alpha"))
	startEtcdDaemon(t, homeB, url("beta"))

	exoEnv(t, homeA, ws1, envA, "model", "register", "m", "--provider", "openai-compatible", "--base-url", srv.BaseURL())
	for name, ws := range map[string]string{"one": ws1, "two": ws2} {
		if _, errs, code := exoEnv(t, homeA, ws, envA, "new", "--name", name); code != 0 {
			t.Fatalf("exo new %s: %s", name, errs)
		}
	}
	rows := sessionsOf(t, homeB, envB)
	for _, name := range []string{"one", "two"} {
		if r := rows[name]; r == nil || r["node"] != "alpha" || r["live"] != true {
			t.Fatalf("beta's view of %s: %v", name, r)
		}
	}
	if out, _, _ := exoEnv(t, homeB, "", envB, "sessions"); !strings.Contains(out, "NODE") || !strings.Contains(out, "alpha (live)") {
		t.Fatalf("exo sessions on beta:\n%s", out)
	}
	if _, errs, code := exoEnv(t, homeB, "", envB, "takeover", "one"); code != 1 || !strings.Contains(errs, "alive") {
		t.Fatalf("take over from a live daemon: exit %d: %s", code, errs)
	}

	// alpha: a turn waits on the model in one while appends go on in two; then SIGKILL.
	if _, errs, code := exoEnv(t, homeA, ws1, envA, "run", "--session", "one", "--model", "m", "--detach", "hello"); code != 0 {
		t.Fatalf("exo run --detach: %s", errs)
	}
	waitRequests(t, srv, 1, "alpha's turn")
	// The appends run from a copy of exo removed before the kill: none of them can start a new
	// alpha daemon (which would reclaim one before beta may take it).
	bin := filepath.Join(t.TempDir(), "exo")
	copyExe(t, bin)
	var (
		mu    sync.Mutex
		acked int
		stop  = make(chan struct{})
		wg    sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			cmd := exec.Command(bin, "--home", homeA, "say", "two", fmt.Sprint("note ", i))
			cmd.Env = append(append(os.Environ(), "EXO_HOME="+homeA), envA...)
			if cmd.Run() == nil {
				mu.Lock()
				acked++
				mu.Unlock()
			}
		}
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		n := acked
		mu.Unlock()
		if n >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no append to two was acknowledged")
		}
	}
	if err := os.Remove(bin); err != nil {
		t.Fatal(err)
	}
	alpha.kill()
	close(stop)
	wg.Wait()
	if pids := daemonPids(t, homeA); len(pids) > 0 {
		t.Fatalf("a daemon for alpha's home runs after the kill: %v", pids)
	}

	// beta sees alpha gone (its lease expired) and takes one over.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if r := sessionsOf(t, homeB, envB)["one"]; r != nil && r["live"] != true {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("alpha's sessions still live a minute after it was killed")
		}
	}
	if out, errs, code := exoEnv(t, homeB, "", envB, "takeover", "one"); code != 0 || !strings.Contains(out, "took over one") {
		t.Fatalf("exo takeover one: exit %d: %s%s", code, out, errs)
	}
	if _, errs, code := exoEnv(t, homeB, "", envB, "say", "one", "from beta"); code != 0 {
		t.Fatalf("beta writes to the session it took over: %s", errs)
	}
	log, _, _ := exoEnv(t, homeB, "", envB, "log", "one")
	if !strings.Contains(log, "turn.interrupted") {
		t.Fatalf("the cut turn is not recorded as interrupted:\n%s", log)
	}

	// alpha comes back: two is still its own, one is beta's now.
	startEtcdDaemon(t, homeA, url("alpha"))
	if _, errs, code := exoEnv(t, homeA, ws2, envA, "say", "two", "still mine"); code != 0 {
		t.Fatalf("alpha writes to two after its restart: %s", errs)
	}
	if _, errs, code := exoEnv(t, homeA, ws1, envA, "say", "one", "mine?"); code == 0 || !strings.Contains(errs, "runs on daemon beta") {
		t.Fatalf("alpha writes to one, which beta took over: exit %d: %s", code, errs)
	}
	rows = sessionsOf(t, homeA, envA)
	mu.Lock()
	want := acked + 2 // session.created, the notes acknowledged, "still mine"
	mu.Unlock()
	if r := rows["two"]; r == nil || int(r["events"].(float64)) < want {
		t.Fatalf("two after the restart: %v, want at least %d events", r, want)
	}
	for _, h := range []struct{ home, env string }{{homeA, envA[0]}, {homeB, envB[0]}} {
		if out, errs, code := exoEnv(t, h.home, "", []string{h.env}, "verify"); code != 0 {
			t.Fatalf("exo verify: %s%s", out, errs)
		}
	}
	for _, home := range []string{homeA, homeB} {
		filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
			if err == nil && fi.Mode().IsRegular() {
				if b, _ := os.ReadFile(p); strings.Contains(string(b), password) {
					t.Errorf("the store password is in %s", p)
				}
			}
			return nil
		})
	}
}
