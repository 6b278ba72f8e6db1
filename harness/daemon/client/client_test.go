package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"exo/harness/api"
	"exo/harness/daemon/wire"
)

// writeJSON answers as the daemon does.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// writeBusy answers as the daemon answers a busy error.
func writeBusy(w http.ResponseWriter, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusConflict)
	_ = json.NewEncoder(w).Encode(&api.RemoteError{Code: api.ErrorCode(err), Message: err.Error()})
}

// TestBusyDaemonOfAnotherProtocolIsExplained serves a fake older daemon that is busy and checks
// the client says, in one line, what to do.
func TestBusyDaemonOfAnotherProtocolIsExplained(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "old.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/hello", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, api.DaemonInfo{Pid: 4242, Build: "old", Protocol: wire.Protocol + 1, Home: "/h"})
	})
	mux.HandleFunc("POST /v1/daemon/drain", func(w http.ResponseWriter, r *http.Request) {
		writeBusy(w, fmt.Errorf("%w: running turns", api.ErrBusy))
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(l)
	defer srv.Close()
	_, err = New(sock).Handshake(context.Background(), "/h")
	if err == nil || !strings.Contains(err.Error(), "speaks protocol") || !strings.Contains(err.Error(), "exo daemon stop") {
		t.Fatalf("err = %v", err)
	}
}

// fakeDaemon serves a hello describing info and counts drain requests.
func fakeDaemon(t *testing.T, info api.DaemonInfo) (*Client, *atomic.Int32) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "fake.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	drains := new(atomic.Int32)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/hello", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, info) })
	mux.HandleFunc("POST /v1/daemon/drain", func(w http.ResponseWriter, r *http.Request) {
		drains.Add(1)
		writeBusy(w, fmt.Errorf("%w: running turns", api.ErrBusy))
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return New(sock), drains
}

// TestOlderClientDoesNotDrain: a client older than the daemon never asks it to drain; of the
// same protocol it is served, of another it gets one line saying the daemon is newer.
func TestOlderClientDoesNotDrain(t *testing.T) {
	future := time.Now().Add(24 * time.Hour)
	c, drains := fakeDaemon(t, api.DaemonInfo{Pid: 4242, Build: "newer", Built: future, Protocol: wire.Protocol, Home: "/h"})
	if _, err := c.Handshake(context.Background(), "/h"); err != nil {
		t.Fatalf("an older client of the same protocol: %v", err)
	}
	c2, drains2 := fakeDaemon(t, api.DaemonInfo{Pid: 4242, Build: "newer", Built: future, Protocol: wire.Protocol + 1, Home: "/h"})
	_, err := c2.Handshake(context.Background(), "/h")
	if err == nil || !strings.Contains(err.Error(), "is newer than this exo") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("an older client of another protocol: %v", err)
	}
	if n := drains.Load() + drains2.Load(); n != 0 {
		t.Fatalf("an older client asked a newer daemon to drain (%d times)", n)
	}
}

// TestStatusAndStopKeepAnOlderDaemon: a client that may not start a daemon (exo daemon status
// and stop) of a newer build never asks an older idle daemon to drain: status reports it and
// stop stops that one (it said "no exo daemon runs" after draining it).
func TestStatusAndStopKeepAnOlderDaemon(t *testing.T) {
	c, drains := fakeDaemon(t, api.DaemonInfo{Pid: 4242, Build: "older", Built: time.Unix(1, 0), Protocol: wire.Protocol, Home: "/h"})
	c.asIs = true
	if _, err := c.Handshake(context.Background(), "/h"); err != nil {
		t.Fatalf("status of an older daemon: %v", err)
	}
	if c.Daemon().Build != "older" || drains.Load() != 0 {
		t.Fatalf("reached %+v after %d drains", c.Daemon(), drains.Load())
	}
	c2, drains2 := fakeDaemon(t, api.DaemonInfo{Pid: 4242, Build: "older", Built: time.Unix(1, 0), Protocol: wire.Protocol, Home: "/h"})
	if _, err := c2.Handshake(context.Background(), "/h"); err != nil || drains2.Load() != 1 {
		t.Fatalf("a client that starts daemons asks an older one to drain: %v, %d drains", err, drains2.Load())
	}
}

// TestRuntimeDirRefusesUnsafeFolders checks the lstat checks: a symlink, an open mode and
// another owner are refused, never used or repaired.
func TestRuntimeDirRefusesUnsafeFolders(t *testing.T) {
	base := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", base)
	dir := filepath.Join(base, "exo")
	if _, err := RuntimeDir(); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(dir); fi.Mode().Perm() != 0o700 {
		t.Fatalf("created with mode %o", fi.Mode().Perm())
	}
	os.Chmod(dir, 0o755)
	if _, err := RuntimeDir(); err == nil || !strings.Contains(err.Error(), "open to other users") {
		t.Fatalf("mode 0755: %v", err)
	}
	os.Remove(dir)
	target := t.TempDir()
	os.Symlink(target, dir)
	if _, err := RuntimeDir(); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("symlink: %v", err)
	}
	os.Remove(dir)
	if os.Getuid() == 0 {
		os.Mkdir(dir, 0o700)
		os.Chown(dir, 65534, 65534)
		if _, err := RuntimeDir(); err == nil || !strings.Contains(err.Error(), "another user") {
			t.Fatalf("owned by nobody: %v", err)
		}
	}
}

// TestSocketPathLength refuses a socket path longer than a socket address holds.
func TestSocketPathLength(t *testing.T) {
	if _, err := SocketPath("/"+strings.Repeat("d", 100), "/home"); err == nil || !strings.Contains(err.Error(), "XDG_RUNTIME_DIR") {
		t.Fatalf("long path: %v", err)
	}
	if p, err := SocketPath("/run/user/1000/exo", "/home/u/.exo"); err != nil || !strings.HasSuffix(p, ".sock") {
		t.Fatalf("short path: %q %v", p, err)
	}
}
