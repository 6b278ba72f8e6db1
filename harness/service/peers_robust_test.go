package service

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"exo/harness"
	"exo/harness/api"
	"exo/store/etcdtest"
)

// logBuffer collects a service's log lines for a test.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns the lines so far.
func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitLog waits until the log holds text.
func waitLog(t *testing.T, b *logBuffer, text string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(b.String(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the log:\n%s", text, b.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPeerWatchRetries starts a daemon's service while its cluster is down: the peer watch
// fails, says so in the log, and once the cluster is back it starts, so the other daemon's
// sessions arrive, whether made before the retried watch started (announced by it) or after
// (live).
func TestPeerWatchRetries(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	ctx := context.Background()
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	url := fmt.Sprintf("etcd://%s/team?node=beta&timeout=5s", strings.Join(c.Endpoints, ","))
	hb, err := harness.Open(t.TempDir(), harness.Options{NoSync: true, Store: url})
	if err != nil {
		t.Fatal(err)
	}
	c.Kill(0)
	var logs logBuffer
	sb := New(hb, Options{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	t.Cleanup(func() { sb.Close(); hb.Close() })
	waitLog(t, &logs, "watching other daemons' sessions failed; trying again")
	c.Restart(0)
	w, err := sb.Watch(ctx, api.WatchRequest{Client: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	_, sa := daemonOn(t, c.Endpoints, "alpha")
	s1, err := sa.NewSession(ctx, api.NewSessionRequest{Name: "one", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	waitPeerLong(t, w, s1.ID) // the retry may be in a backoff of up to 30 s by then
	s2, err := sa.NewSession(ctx, api.NewSessionRequest{Name: "two", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	waitPeerLong(t, w, s2.ID)
}

// TestBadPeerRecordsSkipped: a peer session record that is not JSON, or names a branch that
// is not there, is left out of the list with a log line; the local sessions and the readable
// peer sessions are still listed, and the live watch goes on.
func TestBadPeerRecordsSkipped(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	ctx := context.Background()
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	_, sa := daemonOn(t, c.Endpoints, "alpha")
	url := fmt.Sprintf("etcd://%s/team?node=beta&lease=10s", strings.Join(c.Endpoints, ","))
	hb, err := harness.Open(t.TempDir(), harness.Options{NoSync: true, Store: url})
	if err != nil {
		t.Fatal(err)
	}
	var logs logBuffer
	sb := New(hb, Options{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	t.Cleanup(func() { sb.Close(); hb.Close() })
	w, err := sb.Watch(ctx, api.WatchRequest{Client: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	for key, val := range map[string]string{
		"exo/v1/team/nodes/gamma/sessions/bad":   "{not json",
		"exo/v1/team/nodes/gamma/sessions/ghost": `{"id":"ghost","name":"ghost","branch":"no-such-branch"}`,
	} {
		if _, err := cli.Put(ctx, key, val); err != nil {
			t.Fatal(err)
		}
	}
	waitLog(t, &logs, "record bad of daemon gamma")
	mine, err := sb.NewSession(ctx, api.NewSessionRequest{Name: "mine", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := sa.NewSession(ctx, api.NewSessionRequest{Name: "theirs", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	waitPeer(t, w, theirs.ID) // the watch survived the bad records
	all, err := sb.ListSessions(ctx)
	if err != nil {
		t.Fatalf("list with bad peer records: %v", err)
	}
	var ids []string
	for _, in := range all {
		ids = append(ids, in.Session.ID)
	}
	if len(all) != 2 || ids[0] != mine.ID || ids[1] != theirs.ID {
		t.Fatalf("listed %v, want mine %s and theirs %s", ids, mine.ID, theirs.ID)
	}
	for _, want := range []string{"record bad of daemon gamma", "session=ghost node=gamma"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("no %q in the log:\n%s", want, logs.String())
		}
	}
}

// TestLocalBlobsWarning: a daemon on an etcd store whose artifacts stay in EXO_HOME warns at
// start that other machines cannot read them; with a shared blob folder it does not.
func TestLocalBlobsWarning(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	_, local := daemonOn(t, c.Endpoints, "alpha")
	if w := strings.Join(local.Warnings(), "\n"); !strings.Contains(w, "other machines cannot read them") || !strings.Contains(w, "blobs=") {
		t.Fatalf("warnings with local blobs: %q", w)
	}
	url := fmt.Sprintf("etcd://%s/team?node=beta&blobs=%s", strings.Join(c.Endpoints, ","), t.TempDir())
	h, err := harness.Open(t.TempDir(), harness.Options{NoSync: true, Store: url})
	if err != nil {
		t.Fatal(err)
	}
	s := New(h, Options{})
	defer func() { s.Close(); h.Close() }()
	if w := s.Warnings(); len(w) != 0 {
		t.Fatalf("warnings with a shared blob folder: %q", w)
	}
	if w := func() []string {
		hb, _ := harness.Open(t.TempDir(), harness.Options{NoSync: true})
		defer hb.Close()
		sb := New(hb, Options{})
		defer sb.Close()
		return sb.Warnings()
	}(); len(w) != 0 {
		t.Fatalf("warnings on a local store: %q", w)
	}
}
