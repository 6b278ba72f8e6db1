package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"exo/harness/api"
	"exo/harness/daemon/client"
	"exo/harness/relay"
)

// env carries what every command shares: where EXO_HOME is and the output streams.
type env struct {
	hidden []*cobra.Command
	opts   Options
	home   string
	demo   []byte
	stdout io.Writer
	stderr io.Writer
	stdin  io.Reader
	// rawStdout and rawStderr are stdout and stderr as given: for bytes that are not text for the
	// terminal (exo artifact get) and exo's own line redraws (progress); stdout and stderr pass
	// through termSafe.
	rawStdout, rawStderr io.Writer

	// A command line a thin client relayed to the daemon runs with the client's working
	// directory (dir), the daemon's own harness (client) for as long as the client stays
	// (ctx), and the client's Ctrl-C (interrupts). All are unset in a process of its own.
	dir        string
	relayHome  string
	ctx        context.Context
	client     api.Client
	interrupts <-chan struct{}
	// clientSet names the API key variables set in a relaying client's environment.
	clientSet []string
	// toldTelemetry is set once the command said whether its OTEL_* variables reach the daemon.
	toldTelemetry bool
	// completing is set when the command line asks for shell completions (see addCompletions).
	completing bool
}

// envSet says whether an environment variable is set (non-empty) where the user runs exo: in
// this process, or in the thin client that relayed the command line.
func (e *env) envSet(name string) bool {
	if e.client != nil {
		return slices.Contains(e.clientSet, name)
	}
	return os.Getenv(name) != ""
}

// homeDir returns EXO_HOME: --home, else $EXO_HOME, else ~/.exo.
func (e *env) homeDir() (string, error) {
	if e.relayHome != "" {
		return e.relayHome, nil
	}
	if e.home != "" {
		return filepath.Abs(e.home)
	}
	return client.HomeDir()
}

// connect returns a client of the harness: the daemon of EXO_HOME, started when none runs.
func (e *env) connect(ctx context.Context) (api.Client, error) {
	if e.client != nil {
		return e.client, nil
	}
	home, err := e.homeDir()
	if err != nil {
		return nil, err
	}
	c, err := client.Connect(ctx, home, client.ConnectOptions{})
	if err != nil {
		return nil, err
	}
	if !e.toldTelemetry {
		e.toldTelemetry = true
		d := c.Daemon()
		telemetryNotice(e.stderr, relay.TelemetryEnv(os.Environ()), d.Telemetry, d.Pid)
	}
	return c, nil
}

// withClient connects to the harness, runs fn and releases the client.
func (e *env) withClient(fn func(ctx context.Context, c api.Client) error) error {
	if e.client != nil {
		return fn(e.ctx, e.client)
	}
	ctx := context.Background()
	c, err := e.connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return fn(ctx, c)
}

// Options carry what main.go provides to the command line.
type Options struct {
	// DemoScript is the built-in scripted demo (harness/demo/demo.yaml, embedded).
	DemoScript []byte
	// BuildTag names the build for --version (set by packagers; may be empty).
	BuildTag string
	// RunDaemon runs `exo daemon` in this process until it stops (main.go gives
	// harness/daemon's Run: the command line itself links only the daemon's client).
	RunDaemon func(DaemonOptions) error
	// App is the full-screen app (main.go gives app/cli/tui's; nil without it).
	App App
	// Local is the work a few commands do in this process with the harness's packages
	// (main.go gives app/cli/local's hooks).
	Local Local
}

// DaemonOptions configure the daemon `exo daemon` runs.
type DaemonOptions struct {
	Home string
	// IdleTimeout is how long it stays with no clients and no work (0: the default,
	// negative: forever).
	IdleTimeout time.Duration
	// DemoScript is the built-in scripted demo; Store the --store flag ("" for the default).
	DemoScript []byte
	Store      string
	// Relayed is what it runs for thin clients.
	Relayed *Relayed
}

// Execute runs exo's command line with args and returns the process exit code.
func Execute(args []string, stdin io.Reader, stdout, stderr io.Writer, o Options) int {
	return execute(&env{stdout: stdout, stderr: stderr, stdin: stdin, demo: o.DemoScript, opts: o}, args, o)
}

// execute runs a command line in e.
func execute(e *env, args []string, o Options) int {
	e.rawStdout, e.rawStderr = e.stdout, e.stderr
	e.stdout, e.stderr = newTermSafe(e.stdout), newTermSafe(e.stderr)
	e.completing = completionRequest(args)
	root := newRoot(e)
	root.Version = version(o.BuildTag)
	root.SetArgs(args)
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	err := root.Execute()
	if err != nil && !errors.Is(err, errSilent) {
		fmt.Fprintf(e.stderr, "exo: %v\n", err)
	}
	return exitCode(err)
}

// newRoot builds the command tree.
func newRoot(e *env) *cobra.Command {
	var rf replFlags
	root := &cobra.Command{
		Use:           "exo",
		Short:         "exo — a terminal agent harness with an event-sourced log, fork and rewind",
		Long:          "exo with no command opens the full-screen app on the most recently used session of this directory (or a new one); exo -r picks another session first.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if rf.resume {
				return cobra.MaximumNArgs(1)(cmd, args) // exo -r SESSION opens it
			}
			return cobra.NoArgs(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			rf.themeSet = cmd.Flags().Changed("theme")
			if len(args) == 1 {
				rf.session = args[0]
			}
			return e.repl(rf)
		},
	}
	addReplFlags(root, &rf)
	root.Flags().BoolVarP(&rf.resume, "resume", "r", false, "pick a session to resume (this directory's first; type to filter), or open the one named: exo -r [SESSION]")
	root.PersistentFlags().StringVar(&e.home, "home", "", "exo home directory (default $EXO_HOME or ~/.exo)")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr(plainFlagError(err)) })
	root.AddCommand(
		sessionsCmd(e), newCmd(e), sayCmd(e), logCmd(e), forkCmd(e), rewindCmd(e),
		verifyCmd(e), artifactCmd(e), doctorCmd(e), runCmd(e), modelCmd(e), execCmd(e), replCmd(e), secretCmd(e), taskCmd(e), compactCmd(e),
		daemonCmd(e), attachCmd(e), tailCmd(e), approveCmd(e), budgetCmd(e), takeoverCmd(e),
	)
	root.AddCommand(governanceCmds(e)...)
	root.AddCommand(mcpCmd(e), trustCmd(e), configCmd(e), sessionCmd(e), gcCmd(e), backupCmd(e))
	root.AddCommand(attemptsCmd(e), replayCmd(e))
	root.AddCommand(e.hidden...)
	strictCompletion(root)
	wrapArgs(root) // an unknown command or a stray argument is a usage error (exit 2)
	addCompletions(e, root)
	return root
}

// strictCompletion adds cobra's completion command now (it is otherwise added when the command
// line runs) and makes it runnable, so an unknown shell (exo completion tcsh) is a usage error
// instead of its help and exit 0.
func strictCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" && c.Run == nil && c.RunE == nil {
			c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
		}
	}
}

// wrapArgs makes argument-count errors of a command (and its children) usage errors that show
// the command's usage line ("accepts 2 arg(s), received 0" alone does not say which).
func wrapArgs(c *cobra.Command) {
	if c.Args != nil {
		inner := c.Args
		c.Args = func(cmd *cobra.Command, args []string) error {
			err := inner(cmd, args)
			if err != nil && !strings.HasPrefix(err.Error(), "unknown command") {
				err = fmt.Errorf("%w (usage: %s)", err, cmd.UseLine())
			}
			return usageErr(err)
		}
	}
	for _, sub := range c.Commands() {
		wrapArgs(sub)
	}
}

// withSession connects, resolves a session reference (unknown or ambiguous ones are usage
// errors) and runs fn.
func (e *env) withSession(ref string, fn func(ctx context.Context, c api.Client, s *api.Session) error) error {
	return e.withClient(func(ctx context.Context, c api.Client) error {
		s, err := resolve(ctx, c, ref)
		if err != nil {
			return err
		}
		return fn(ctx, c, s)
	})
}

// resolve finds a session by reference, with a usage error for unknown or ambiguous ones.
func resolve(ctx context.Context, c api.Client, ref string) (*api.Session, error) {
	s, err := c.Session(ctx, ref)
	if errors.Is(err, api.ErrNoSession) || errors.Is(err, api.ErrAmbiguous) {
		return nil, usageErr(err)
	}
	return s, err
}

// splitRef parses "SESSION@SEQ"; seq is 0 when absent unless required.
func splitRef(ref string, required bool) (string, uint64, error) {
	name, seqText, has := strings.Cut(ref, "@")
	if !has {
		if required {
			return "", 0, usagef("%q: give SESSION@SEQ, e.g. %s@12", ref, ref)
		}
		return name, 0, nil
	}
	seq, err := strconv.ParseUint(seqText, 10, 64)
	if err != nil || seq == 0 {
		return "", 0, usagef("%q: SEQ must be an event number from 1 up", ref)
	}
	return name, seq, nil
}

// maxStdinText is the most a "-" argument reads from stdin: what the daemon takes in one
// request. A relayed command line reads it inside the daemon, so the bound also keeps one
// client's endless stdin from filling the daemon's memory.
const maxStdinText = 64 << 20

// stdinText reads all of stdin for a "-" argument.
func (e *env) stdinText() (string, error) {
	b, err := io.ReadAll(io.LimitReader(e.stdin, maxStdinText+1))
	if err != nil {
		return "", fmt.Errorf("read stdin: %w", err)
	}
	if len(b) > maxStdinText {
		return "", usagef("stdin holds more than %d MiB: a prompt or message takes up to that; attach big files with @path instead", maxStdinText>>20)
	}
	return string(b), nil
}

// secs converts whole seconds to a duration.
func secs(n int) time.Duration { return time.Duration(n) * time.Second }

// cwd returns the working directory, for new sessions' workspaces: the client's, for a command
// line a thin client relayed to the daemon.
func (e *env) cwd() string {
	if e.dir != "" {
		return e.dir
	}
	d, err := os.Getwd()
	if err != nil {
		return "."
	}
	return d
}
