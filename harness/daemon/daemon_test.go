package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/daemon/client"
	"exo/harness/daemon/wire"
	"exo/harness/service"
	"exo/sandbox"
)

// TestMain lets the test binary act as the sandbox's confinement helper, and as a client run
// under another uid (EXO_TEST_DIAL).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	if sock := os.Getenv("EXO_TEST_DIAL"); sock != "" {
		os.Exit(dialAndHello(sock))
	}
	if len(os.Args) == 4 && os.Args[1] == "daemon" && os.Args[2] == "--home" {
		// a client started the test binary as its daemon (ConnectOptions.Executable)
		err := Run(RunOptions{Home: os.Args[3], IdleTimeout: time.Minute,
			Harness: harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}}})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// dialAndHello is the other user's client: exit 0 when the daemon answered hello, 2 when the
// connection was refused or cut, 3 when it could not even connect.
func dialAndHello(sock string) int {
	c := client.New(sock)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if _, err := c.Hello(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if errors.Is(err, syscall.EACCES) || errors.Is(err, os.ErrPermission) {
			return 3
		}
		return 2
	}
	return 0
}

// testLog discards the daemon's log lines unless the test fails.
func testLog(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// fixture is a daemon server over a fresh harness, and a client of it.
type fixture struct {
	h    *harness.Harness
	svc  *service.Service
	srv  *Server
	c    *client.Client
	sock string
	done chan error
}

// serve starts a server on a socket in a private temporary folder.
func serve(t testing.TB, idle time.Duration) *fixture {
	t.Helper()
	return serveCLI(t, idle, nil)
}

// serveCLI is serve with a daemon that runs relayed command lines with cli.
func serveCLI(t testing.TB, idle time.Duration, cli *CLI) *fixture {
	t.Helper()
	home := t.TempDir()
	h, err := harness.Open(home, harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(h, service.Options{})
	sock := filepath.Join(t.TempDir(), "d.sock")
	l, err := listen(sock, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	info := api.DaemonInfo{Pid: os.Getpid(), Build: BuildID(), Protocol: Protocol, Socket: sock, Home: home, IdleTimeout: idle}
	f := &fixture{h: h, svc: svc, srv: NewServer(svc, info, testLog(t), cli), c: client.New(sock), sock: sock, done: make(chan error, 1)}
	go func() { f.done <- f.srv.Serve(l) }()
	t.Cleanup(func() {
		f.c.Close()
		f.srv.Stop("test over")
		<-f.done
		svc.Close()
		h.Close()
	})
	if _, err := f.c.Handshake(context.Background(), home); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestErrorsKeepTheirIdentity checks that errors.Is works across the wire for the errors the
// CLI maps to exit codes.
func TestErrorsKeepTheirIdentity(t *testing.T) {
	f := serve(t, 0)
	ctx := context.Background()
	if _, err := f.c.Session(ctx, "nobody"); !errors.Is(err, harness.ErrNoSession) {
		t.Fatalf("unknown session: %v", err)
	}
	a, err := f.c.NewSession(ctx, api.NewSessionRequest{Name: "alpha-one"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.NewSession(ctx, api.NewSessionRequest{Name: "alpha-two"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.Rewind(ctx, a.ID, 99); !errors.Is(err, harness.ErrBadSeq) {
		t.Fatalf("rewind past the head: %v", err)
	}
	if err := f.c.Approve(ctx, a.ID, "call-x", "once"); !errors.Is(err, api.ErrResolved) {
		t.Fatalf("approval nobody asked for: %v", err)
	}
	if _, err := f.c.StartTurn(ctx, api.TurnRequest{Session: a.ID, Text: "  "}); !errors.Is(err, api.ErrInvalid) {
		t.Fatalf("empty prompt: %v", err)
	}
	if _, err := f.c.Artifact(ctx, "feedface"); !errors.Is(err, api.ErrNotFound) {
		t.Fatalf("missing artifact: %v", err)
	}
}

// TestTailResumesWithoutGapsOrDuplicates follows a session while events are appended, cuts the
// stream, resumes with after=last, and checks every seq arrives exactly once, across a rewind.
func TestTailResumesWithoutGapsOrDuplicates(t *testing.T) {
	f := serve(t, 0)
	ctx := context.Background()
	s, err := f.c.NewSession(ctx, api.NewSessionRequest{Name: "tailed"})
	if err != nil {
		t.Fatal(err)
	}
	say := func(n int) {
		for i := 0; i < n; i++ {
			if _, err := f.c.Say(ctx, s.ID, fmt.Sprintf("m%d", i), "test"); err != nil {
				t.Fatal(err)
			}
		}
	}
	say(20)
	seen := map[uint64]int{}
	var last uint64
	var branch string
	read := func(w *api.Watcher, until uint64) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for last < until {
			select {
			case n, ok := <-w.C:
				if !ok {
					t.Fatalf("stream ended at %d: %v", last, w.Err())
				}
				for _, e := range n.Events {
					if e.Branch == branch || branch == "" {
						seen[e.Seq]++
					}
					if e.Seq != last+1 && e.Branch == branch {
						t.Fatalf("gap or duplicate: got %d after %d", e.Seq, last)
					}
					last, branch = e.Seq, e.Branch
				}
			case <-deadline:
				t.Fatalf("stuck at %d of %d", last, until)
			}
		}
	}
	w, err := f.c.Watch(ctx, api.WatchRequest{Session: s.ID, After: 5})
	if err != nil {
		t.Fatal(err)
	}
	last = 5
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); say(30) }()
	read(w, 51)
	wg.Wait()
	w.Close()
	say(10) // while nobody watches
	w, err = f.c.Watch(ctx, api.WatchRequest{Session: s.ID, After: last, Branch: branch})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	read(w, 61)
	for seq := uint64(6); seq <= 61; seq++ {
		if seen[seq] != 1 {
			t.Fatalf("seq %d seen %d times", seq, seen[seq])
		}
	}
	// A rewind while watching: the tail moves to the new branch and goes on from the fork seq.
	if _, err := f.c.Rewind(ctx, s.ID, 30); err != nil {
		t.Fatal(err)
	}
	ev, err := f.c.Say(ctx, s.ID, "after the rewind", "test")
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case n, ok := <-w.C:
			if !ok {
				t.Fatal("stream ended after the rewind")
			}
			for _, e := range n.Events {
				if e.Seq == ev.Seq && e.Branch == ev.Branch && strings.Contains(string(e.Data), "after the rewind") {
					return
				}
			}
		case <-deadline:
			t.Fatal("the message after the rewind never came")
		}
	}
}

// TestDeltasCoalesceAndArriveWhole publishes many small deltas and checks the client gets all
// the text, in order, in far fewer frames.
func TestDeltasCoalesceAndArriveWhole(t *testing.T) {
	f := serve(t, 0)
	ctx := context.Background()
	s, _ := f.c.NewSession(ctx, api.NewSessionRequest{Name: "stream"})
	w, err := f.c.Watch(ctx, api.WatchRequest{Session: s.ID, After: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var want strings.Builder
	for i := 0; i < 5000; i++ {
		d := fmt.Sprintf("%d,", i)
		want.WriteString(d)
		f.h.Publish(harness.Notice{Session: s.ID, Delta: d})
	}
	f.h.Publish(harness.Notice{Session: s.ID, Turn: &harness.TurnNotice{ID: "t", Running: false}})
	var got strings.Builder
	frames := 0
	for n := range w.C {
		if n.Turn != nil {
			break
		}
		got.WriteString(n.Delta)
		frames++
	}
	if got.String() != want.String() {
		t.Fatalf("text differs: %d bytes vs %d", got.Len(), want.Len())
	}
	if frames > 2500 {
		t.Fatalf("%d frames for 5000 deltas: not coalesced", frames)
	}
}

// TestFirstApprovalWins answers one approval from two clients at once: one wins, the other is
// told it was already answered, and the log holds one resolution.
func TestFirstApprovalWins(t *testing.T) {
	f := serve(t, 0)
	ctx := context.Background()
	s, _ := f.c.NewSession(ctx, api.NewSessionRequest{Name: "ask"})
	if _, err := f.h.Append(s.ID, harness.MustRecord(harness.TypeApprovalRequested, "executor:default",
		harness.ApprovalRequested{CallID: "c1", Tool: "bash", Summary: "rm -rf build"})); err != nil {
		t.Fatal(err)
	}
	other := client.New(f.sock)
	defer other.Close()
	errs := make(chan error, 2)
	for _, c := range []*client.Client{f.c, other} {
		go func(c *client.Client) { errs <- c.Approve(ctx, s.ID, "c1", "once") }(c)
	}
	e1, e2 := <-errs, <-errs
	if (e1 == nil) == (e2 == nil) {
		t.Fatalf("want exactly one winner: %v / %v", e1, e2)
	}
	if lost := errors.Join(e1, e2); !errors.Is(lost, api.ErrResolved) {
		t.Fatalf("the loser was not told it was answered: %v", lost)
	}
	evs, _ := f.c.Events(ctx, s.Branch, 1, 0)
	n := 0
	for _, e := range evs {
		if e.Type == harness.TypeApprovalResolved {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d approval.resolved events", n)
	}
}

// TestIncompatibleProtocolGetsOneLine sends a request of another protocol version.
func TestIncompatibleProtocolGetsOneLine(t *testing.T) {
	f := serve(t, 0)
	req, _ := f.c.Request(context.Background(), "GET", "/v1/sessions", nil)
	req.Header.Set(wire.HeaderProtocol, "99")
	resp, err := f.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK || !strings.Contains(string(b), "protocol 1") || strings.Count(strings.TrimSpace(string(b)), "\n") != 0 {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
}

// TestIdleServerStops stops a server with no clients and no work after its idle time.
func TestIdleServerStops(t *testing.T) {
	f := serve(t, 300*time.Millisecond)
	f.c.Close() // drop the hello's keep-alive connection
	select {
	case <-f.done:
		f.done <- nil
		if !strings.Contains(f.srv.StopReason(), "idle") {
			t.Fatalf("stopped for %q", f.srv.StopReason())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the idle server did not stop")
	}
}

// TestWatchingClientKeepsServerUp keeps a watch open past the idle time.
func TestWatchingClientKeepsServerUp(t *testing.T) {
	f := serve(t, 300*time.Millisecond)
	w, err := f.c.Watch(context.Background(), api.WatchRequest{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	select {
	case <-f.done:
		t.Fatal("stopped while a client watched")
	case <-time.After(900 * time.Millisecond):
	}
}

// TestOtherUserRefused runs a client as another uid against a socket it could reach on the
// file system (its folder opened up for the test): the daemon must refuse it by SO_PEERCRED.
func TestOtherUserRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a client as another uid; the folder's 0700 mode and SO_PEERCRED still apply")
	}
	f := serve(t, 0)
	dir := filepath.Dir(f.sock)
	os.Chmod(dir, 0o755)
	os.Chmod(f.sock, 0o666)
	for _, p := range []string{filepath.Dir(dir), filepath.Dir(filepath.Dir(dir))} {
		if fi, err := os.Stat(p); err == nil {
			os.Chmod(p, fi.Mode().Perm()|0o011)
			defer os.Chmod(p, fi.Mode().Perm())
		}
	}
	bin := othersCopy(t)
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), "EXO_TEST_DIAL="+f.sock)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("the other user's client: %v (%s); want refused after connecting (exit 2)", err, out)
	}
	// With the folder private again (as RuntimeDir makes it), it cannot even connect.
	os.Chmod(dir, 0o700)
	cmd = exec.Command(bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), "EXO_TEST_DIAL="+f.sock)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err = cmd.CombinedOutput()
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("the other user's client through a 0700 folder: %v (%s); want no access (exit 3)", err, out)
	}
}

// othersCopy copies the test binary where another user may run it.
func othersCopy(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "exo-dial-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "dial")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestSocketIsPrivate checks the socket's mode.
func TestSocketIsPrivate(t *testing.T) {
	f := serve(t, 0)
	fi, err := os.Lstat(f.sock)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v", fi.Mode())
	}
}

// TestReasoningAndAnswerStayApart streams reasoning, then answer text, then sandbox output: each
// arrives whole and in order, never merged into another kind.
func TestReasoningAndAnswerStayApart(t *testing.T) {
	f := serve(t, 0)
	ctx := context.Background()
	s, _ := f.c.NewSession(ctx, api.NewSessionRequest{Name: "think"})
	w, err := f.c.Watch(ctx, api.WatchRequest{Session: s.ID, After: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := 0; i < 300; i++ {
		f.h.Publish(harness.Notice{Session: s.ID, Reasoning: "r"})
	}
	for i := 0; i < 300; i++ {
		f.h.Publish(harness.Notice{Session: s.ID, Delta: "d"})
	}
	f.h.Publish(harness.Notice{Session: s.ID, Output: []byte("o")})
	f.h.Publish(harness.Notice{Session: s.ID, Turn: &harness.TurnNotice{ID: "t"}})
	var order strings.Builder
	for n := range w.C {
		if n.Turn != nil {
			break
		}
		kinds := 0
		for _, x := range []string{n.Reasoning, n.Delta, string(n.Output)} {
			if x != "" {
				kinds++
			}
		}
		if kinds > 1 {
			t.Fatalf("a frame mixes kinds: %+v", n)
		}
		order.WriteString(n.Reasoning + n.Delta + string(n.Output))
	}
	if want := strings.Repeat("r", 300) + strings.Repeat("d", 300) + "o"; order.String() != want {
		t.Fatalf("got %q", order.String())
	}
}

// drainAs asks the fixture's daemon to drain if idle, as a client of build built at built.
func drainAs(t *testing.T, f *fixture, build string, built time.Time) error {
	t.Helper()
	req, err := f.c.Request(context.Background(), "POST", "/v1/daemon/drain", map[string]any{"if_idle": true, "reason": "test"})
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(wire.HeaderBuild, build)
	if !built.IsZero() {
		req.Header.Set(wire.HeaderBuilt, built.Format(time.RFC3339Nano))
	} else {
		req.Header.Del(wire.HeaderBuilt)
	}
	resp, err := f.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%d: %s", resp.StatusCode, b)
	}
	return nil
}

// TestOnlyANewerBuildReplacesAnIdleDaemon: a drain to replace the daemon is refused from the
// same build, an older one, one that does not say when it was built, and a newer one while a
// client follows the daemon; a newer build's drain of the idle daemon stops it.
func TestOnlyANewerBuildReplacesAnIdleDaemon(t *testing.T) {
	f := serve(t, 0)
	built := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	f.srv.info.Built = built
	for _, c := range []struct {
		name, build string
		at          time.Time
	}{
		{"same build", f.srv.info.Build, built.Add(time.Hour)},
		{"older build", "older", built.Add(-time.Hour)},
		{"build of the same time", "twin", built},
		{"build that does not say when", "mute", time.Time{}},
	} {
		if err := drainAs(t, f, c.build, c.at); err == nil || !strings.Contains(err.Error(), "busy") {
			t.Fatalf("%s: drain answered %v, want a refusal", c.name, err)
		}
	}
	w, err := f.c.Watch(context.Background(), api.WatchRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if err := drainAs(t, f, "newer", built.Add(time.Hour)); err == nil || !strings.Contains(err.Error(), "clients follow") {
		t.Fatalf("drain with a watching client answered %v", err)
	}
	w.Close()
	deadline := time.Now().Add(10 * time.Second)
	for f.svc.Watchers() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case <-f.done:
		t.Fatal("the daemon stopped before a newer build asked")
	default:
	}
	if err := drainAs(t, f, "newer", built.Add(time.Hour)); err != nil {
		t.Fatalf("a newer build's drain of the idle daemon: %v", err)
	}
	select {
	case <-f.done:
		f.done <- nil
	case <-time.After(10 * time.Second):
		t.Fatal("the drained daemon did not stop")
	}
}

// TestClientRestartsAKilledDaemon: a client made by Connect finds its daemon killed with
// SIGKILL and starts a new one for its next request, which is answered with nothing lost; a
// client that may not start one (exo daemon status) says none runs.
func TestClientRestartsAKilledDaemon(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	os.Chmod(os.Getenv("XDG_RUNTIME_DIR"), 0o700)
	home := t.TempDir()
	ctx := context.Background()
	c, err := client.Connect(ctx, home, client.ConnectOptions{Executable: os.Args[0]})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	first := c.Daemon().Pid
	t.Cleanup(func() {
		if s, err := client.Connect(ctx, home, client.ConnectOptions{NoStart: true}); err == nil {
			s.Stop(ctx)
		}
	})
	if _, err := c.NewSession(ctx, api.NewSessionRequest{Name: "phoenix"}); err != nil {
		t.Fatal(err)
	}
	syscall.Kill(first, syscall.SIGKILL)
	if !waitGone(ctx, first, 20*time.Second) {
		t.Fatal("the daemon did not die")
	}
	if _, err := client.Connect(ctx, home, client.ConnectOptions{NoStart: true}); !errors.Is(err, api.ErrUnavailable) {
		t.Fatalf("a client that may not start a daemon: %v, want unavailable", err)
	}
	all, err := c.ListSessions(ctx)
	if err != nil {
		t.Fatalf("the request after the kill: %v", err)
	}
	if len(all) != 1 || all[0].Session.Name != "phoenix" {
		t.Fatalf("sessions after the restart: %+v", all)
	}
	if pid := c.Daemon().Pid; pid == first || pid == 0 || syscall.Kill(pid, 0) != nil {
		t.Fatalf("daemon pid %d after the restart (killed %d)", pid, first)
	}
}

// waitGone waits until a process has exited; it reports whether it did.
func waitGone(ctx context.Context, pid int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}
