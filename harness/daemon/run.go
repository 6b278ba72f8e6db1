package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/daemon/wire"
	"exo/harness/relay"
	"exo/harness/rundir"
	"exo/harness/service"
	"exo/store"
)

// DefaultIdleTimeout is how long a daemon with no clients and no work stays.
const DefaultIdleTimeout = 30 * time.Minute

// RunOptions configure a daemon.
type RunOptions struct {
	Home string
	// IdleTimeout is how long it stays with no clients and no work (0: DefaultIdleTimeout,
	// negative: forever).
	IdleTimeout time.Duration
	Harness     harness.Options
	// Executable is exo's binary (background tasks re-run it); default this executable.
	Executable string
	// CLI runs command lines thin exo clients relay to the daemon (nil: none are taken).
	CLI *CLI
}

// Run is `exo daemon`: it owns EXO_HOME's store, sandboxes and turns, serves the API on the
// socket until it is stopped, idle or replaced, then cancels running turns (recorded) and
// closes the store.
func Run(o RunOptions) (err error) {
	notify := notifier()
	applyGCPolicy()
	if want := os.Getenv(wire.ExpectBuildEnv); want != "" {
		os.Unsetenv(wire.ExpectBuildEnv) // not for the commands and tasks it runs
		if want != BuildID() {
			notify(wire.OtherBuild + "\t" + BuildID())
			return fmt.Errorf("this daemon binary is of build %.12s, its client of build %.12s: the client runs its own", BuildID(), want)
		}
	}
	defer func() {
		if err != nil {
			notify("error: " + api.ErrorCode(err) + "\t" + strings.ReplaceAll(err.Error(), "\n", " "))
		}
	}()
	logw := &redactingLog{w: os.Stderr}
	log := slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelInfo}))
	dir, err := rundir.RuntimeDir()
	if err != nil {
		return err
	}
	sock, err := rundir.SocketPath(dir, o.Home)
	if err != nil {
		return err
	}
	if o.Harness.Log == nil {
		o.Harness.Log = log
	}
	o.Harness.PrivateDirs = append(o.Harness.PrivateDirs, dir)
	h, err := openHarness(o)
	if err != nil {
		return err
	}
	defer h.Close()
	logw.setRedact(h.Redact)
	if err := clearStaleSocket(sock); err != nil {
		return err
	}
	l, err := listen(sock, log)
	if err != nil {
		return err
	}
	info := api.DaemonInfo{Pid: os.Getpid(), Build: BuildID(), Built: wire.BuildTime(), Protocol: Protocol, Socket: sock, Home: o.Home,
		Started: time.Now().UTC(), Log: logPathOf(o.Home), IdleTimeout: idleTimeout(o.IdleTimeout),
		Telemetry: relay.TelemetryEnv(os.Environ())}
	exe := o.Executable
	if exe == "" {
		exe, _ = os.Executable()
	}
	svc := service.New(h, service.Options{Executable: exe, Daemon: &info, Log: log})
	if ro := h.ReadOnly(); ro != nil {
		log.Warn("EXO_HOME cannot be written: sessions, logs and verification work, nothing can be changed", "why", ro)
	}
	for _, w := range svc.Warnings() {
		log.Warn(w)
	}
	if r := h.Recovery(); !r.Empty() { // harness.Open put EXO_HOME back in order after a dead process
		log.Info("recovered after a process that died", "interrupted", r.Interrupted, "completed", r.Completed,
			"rolled_back", r.RolledBack, "problems", r.Problems)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = h.WatchDetached(ctx) }()
	srv := NewServer(svc, info, log, o.CLI)
	writeInfo(o.Home, info)
	defer os.Remove(filepath.Join(o.Home, InfoName))
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() {
		if sig, ok := <-sigs; ok {
			srv.Stop("signal " + sig.String())
		}
	}()
	defer signal.Stop(sigs)
	log.Info("daemon started", "pid", info.Pid, "socket", sock, "home", o.Home, "build", info.Build, "idle_timeout", info.IdleTimeout, "exe", exe)
	notify("ready")
	serveErr := srv.Serve(l)
	svc.Close() // running turns end as cancelled, in the log
	log.Info("daemon stopped", "reason", srv.StopReason())
	return serveErr
}

// idleTimeout applies the defaults: EXO_DAEMON_IDLE when set, else DefaultIdleTimeout.
func idleTimeout(d time.Duration) time.Duration {
	if d == 0 {
		if v, err := time.ParseDuration(os.Getenv("EXO_DAEMON_IDLE")); err == nil {
			d = v
		} else {
			d = DefaultIdleTimeout
		}
	}
	if d < 0 {
		return 0
	}
	return d
}

// clearStaleSocket removes a socket file no daemon answers on (this daemon holds the store, so
// none of EXO_HOME can; a file left by a killed one is stale). A non-socket is left alone.
func clearStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSocket == 0 {
		return fmt.Errorf("%s exists and is not a socket: remove it", path)
	}
	if c, err := net.DialTimeout("unix", path, 200*time.Millisecond); err == nil {
		c.Close()
		return fmt.Errorf("another exo daemon answers on %s", path)
	}
	return os.Remove(path)
}

// writeInfo records the daemon's description in EXO_HOME (for people and `exo daemon status`
// when the socket is unreachable).
func writeInfo(home string, info api.DaemonInfo) {
	b, _ := json.MarshalIndent(info, "", "  ")
	tmp := filepath.Join(home, InfoName+".tmp")
	if os.WriteFile(tmp, append(b, '\n'), 0o600) == nil {
		_ = os.Rename(tmp, filepath.Join(home, InfoName))
	}
}

// ReadInfo reads the description a running daemon left in EXO_HOME.
func ReadInfo(home string) (api.DaemonInfo, error) {
	var info api.DaemonInfo
	b, err := os.ReadFile(filepath.Join(home, InfoName))
	if err != nil {
		return info, err
	}
	return info, json.Unmarshal(b, &info)
}

// notifier returns how a daemon started by a client reports "ready" or its error: a line on
// the descriptor named by EXO_DAEMON_NOTIFY_FD, written once. By hand it reports nothing.
func notifier() func(string) {
	fd, err := strconv.Atoi(os.Getenv(wire.NotifyFDEnv))
	os.Unsetenv(wire.NotifyFDEnv)
	if err != nil || fd < 3 {
		return func(string) {}
	}
	f := os.NewFile(uintptr(fd), "notify")
	done := false
	return func(line string) {
		if done || f == nil {
			return
		}
		done = true
		fmt.Fprintln(f, line)
		f.Close()
	}
}

// openHarness opens EXO_HOME's harness; while the store is held by a daemon that is exiting
// (it was stopped, replaced or found its file damaged a moment ago) it waits a little for it.
func openHarness(o RunOptions) (*harness.Harness, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		h, err := harness.Open(o.Home, o.Harness)
		if err == nil || !errors.Is(err, store.ErrLocked) || time.Now().After(deadline) || !holderIsDaemon(o.Home) {
			return h, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// holderIsDaemon reports whether the process that last ran a daemon on home is still there
// (it is the one holding the store, on its way out).
func holderIsDaemon(home string) bool {
	info, err := ReadInfo(home)
	return err == nil && info.Pid > 0 && info.Pid != os.Getpid() && syscall.Kill(info.Pid, 0) == nil
}

// logPathOf names the log the daemon of home writes (see rundir.LogPath).
func logPathOf(home string) string {
	if p, err := rundir.LogPath(home); err == nil {
		return p
	}
	return filepath.Join(home, LogName)
}
