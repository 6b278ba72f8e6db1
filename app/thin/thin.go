// Package thin is the exo command a user types: a small client that hands the command lines
// people run most (exo run, sessions, log, tail, new, say, fork, rewind and verify) to the warm
// daemon over its socket (harness/relay) and runs the full exo binary (exo-full, next to it) for
// everything else, for the app, and whenever no daemon of the same build is there to take the
// command; it answers --help itself (app/thin/help). It links only the standard library and
// three small exo packages: the full binary
// spends tens of milliseconds initialising the TUI's and the model SDKs' packages before main,
// which a thin client skips.
package thin

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"exo/app/thin/help"
	"exo/harness/relay"
	"exo/harness/rundir"
)

// FullName is the full exo binary's file name; the thin exo looks for it next to itself first,
// then on PATH. EXO_FULL names it explicitly.
const FullName = "exo-full"

// relayed are the commands the daemon runs for a thin client; every other command line goes
// to the full exo.
var relayed = map[string]bool{"run": true, "sessions": true, "ls": true, "log": true, "tail": true, "new": true, "say": true,
	"fork": true, "rewind": true, "verify": true}

// Relayable says whether a command line may run in the daemon: one of the relayed commands
// (after a --home flag, the only global one).
func Relayable(args []string) bool {
	return relayed[command(args)]
}

// command returns the command a command line runs ("" for the app or a global flag).
func command(args []string) string {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--home":
			i++
		case strings.HasPrefix(a, "--home="):
		default:
			return a
		}
	}
	return ""
}

// HomeArg returns the value of a --home flag on the command line ("" without one): like the
// full exo's, it may stand anywhere before "--".
func HomeArg(args []string) string {
	home := ""
	for i, a := range args {
		switch {
		case a == "--":
			return home
		case a == "--home" && i+1 < len(args):
			home = args[i+1]
		case strings.HasPrefix(a, "--home="):
			home = strings.TrimPrefix(a, "--home=")
		}
	}
	return home
}

// Main runs a command line and returns its exit code (when it does not replace the process
// with the full exo).
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if text, ok := help.For(args); ok && os.Getenv("EXO_RELAY") != "0" {
		// What the full exo's command tree prints, generated from it at build time.
		if _, err := io.WriteString(stdout, text); err != nil {
			return 1
		}
		return 0
	}
	full, err := FullBinary()
	if err != nil {
		fmt.Fprintf(stderr, "exo: %v\n", err)
		return 1
	}
	if os.Getenv("EXO_RELAY") == "0" || !Relayable(args) {
		return execFull(full, args, stderr)
	}
	code, err := relayToDaemon(full, args, stdin, stdout, stderr)
	if errors.Is(err, relay.ErrNotServed) {
		return execFull(full, args, stderr)
	}
	if errors.Is(err, relay.ErrBusy) {
		fmt.Fprintf(stderr, "exo: %v\n", err)
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "exo: %v (exo daemon logs shows the daemon's side)\n", err)
		return 1
	}
	return code
}

// relayToDaemon hands the command line to the daemon of EXO_HOME and relays its stdio.
func relayToDaemon(full string, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	home, err := rundir.HomeDir()
	if h := HomeArg(args); h != "" {
		home, err = filepath.Abs(h)
	}
	if err != nil {
		return 0, fmt.Errorf("%w: %v", relay.ErrNotServed, err)
	}
	dir, err := rundir.RuntimeDir()
	if err != nil {
		return 0, fmt.Errorf("%w: %v", relay.ErrNotServed, err)
	}
	sock, err := rundir.SocketPath(dir, home)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", relay.ErrNotServed, err)
	}
	build := relay.ExecutableBuildID(full)
	wd, err := os.Getwd()
	if build == "" || err != nil {
		return 0, fmt.Errorf("%w: no build id or working directory", relay.ErrNotServed)
	}
	env, set := relay.Environment()
	conn, err := relay.Start(sock, strconv.Itoa(relay.Protocol), build, relay.Invocation{Args: args, Dir: wd, Home: home, Env: env, Set: set,
		Telemetry: relay.TelemetryEnv(os.Environ())})
	if err != nil {
		return 0, err
	}
	interrupts := make(chan struct{}, 1)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go onSignals(command(args) == "run", sigs, interrupts)
	return conn.Wait(relay.Stdio{Stdin: stdin, Stdout: stdout, Stderr: stderr, Interrupts: interrupts})
}

// onSignals gives exo run's first Ctrl-C (or SIGTERM) to the command, which cancels its turn,
// and leaves on the second; other commands leave at the first, as a process of their own would
// (the daemon then ends the command).
func onSignals(relayFirst bool, sigs <-chan os.Signal, interrupts chan<- struct{}) {
	for first := true; ; first = false {
		sig := <-sigs
		if first && relayFirst {
			interrupts <- struct{}{}
			continue
		}
		code := 130
		if sig == syscall.SIGTERM {
			code = 143
		}
		os.Exit(code)
	}
}

// FullBinary finds the full exo: $EXO_FULL, else exo-full next to this executable, else in a
// folder of PATH. Only absolute paths count: a relative EXO_FULL or PATH entry ("." or an empty
// one among them) names a file of whatever directory exo runs in, a repository an agent writes
// say, so exo never runs one (as Go's os/exec refuses with exec.ErrDot) and says so when that
// is the only exo-full it found. A "full" exo that is this very binary is refused too: each
// would run the other forever.
func FullBinary() (string, error) {
	self, selfErr := os.Executable()
	p, err := findFull(self)
	if err != nil {
		return "", err
	}
	if selfErr == nil && sameFile(p, self) {
		return "", fmt.Errorf("%s is this thin exo itself, not the full exo: build the full one there (go build -tags grpcnotrace -o %s .) or point EXO_FULL at it", p, FullName)
	}
	return p, nil
}

// findFull looks for the full exo as FullBinary says; self is this executable ("" if unknown).
func findFull(self string) (string, error) {
	if p := os.Getenv("EXO_FULL"); p != "" {
		if !filepath.IsAbs(p) {
			return "", fmt.Errorf("EXO_FULL=%s is not an absolute path: exo would run whatever file of that name the current directory holds; set it to the full exo's absolute path", p)
		}
		return p, nil
	}
	if self != "" {
		p := filepath.Join(filepath.Dir(self), FullName)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	relative := ""
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" {
			dir = "." // an empty entry is the current directory
		}
		p := filepath.Join(dir, FullName)
		if !executable(p) {
			continue
		}
		if !filepath.IsAbs(dir) {
			if relative == "" {
				relative = p
			}
			continue
		}
		return p, nil
	}
	if relative != "" {
		return "", fmt.Errorf("the only %s found is %s, through PATH's relative entry: exo does not run a program the current directory provides (as Go's exec.ErrDot); put %s beside exo or in an absolute PATH folder, or set EXO_FULL to its absolute path", FullName, relative, FullName)
	}
	where := "this exo's folder"
	if self != "" {
		where = filepath.Dir(self)
	}
	return "", fmt.Errorf("the full exo binary (%s) is neither in %s nor on PATH: build the binaries with the first command of README's Quick start (go build -tags grpcnotrace -o %s . && ...), or set EXO_FULL", FullName, where, FullName)
}

// executable says whether p is a regular file someone may execute (as exec.LookPath checks).
func executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// sameFile says whether two paths name the same file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// execFull replaces this process with the full exo running the same command line.
func execFull(full string, args []string, stderr io.Writer) int {
	err := syscall.Exec(full, append([]string{full}, args...), os.Environ())
	fmt.Fprintf(stderr, "exo: run %s: %v\n", full, err)
	return 1
}
