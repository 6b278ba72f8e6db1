package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"exo/harness/api"
	"exo/harness/daemon/client"
)

func daemonCmd(e *env) *cobra.Command {
	var idle time.Duration
	var storeURL string
	cmd := &cobra.Command{
		Use:   "daemon",
		Short: "Run the harness daemon in the foreground (exo starts it by itself when needed)",
		Long: "One daemon per EXO_HOME owns the store, the sandboxes, running turns and background tasks; every\n" +
			"exo command and app is its client over a unix socket in $XDG_RUNTIME_DIR/exo (or $TMPDIR/exo-UID).\n" +
			"It exits after --idle with no clients and no work (EXO_DAEMON_IDLE sets the default, 30m).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, err := e.homeDir()
			if err != nil {
				return err
			}
			if e.opts.RunDaemon == nil {
				return errors.New("this exo cannot run the daemon")
			}
			return e.opts.RunDaemon(DaemonOptions{Home: home, IdleTimeout: idle, DemoScript: e.demo, Store: storeURL, Relayed: e.relayCLI()})
		},
	}
	cmd.Flags().DurationVar(&idle, "idle", 0, "exit after this long with no clients and no work (negative: never)")
	cmd.Flags().StringVar(&storeURL, "store", "", "store to open: bbolt (default) or etcd://host:2379,…/namespace?node=…&blobs=DIR&cacert=…&cert=…&key=…&user=…&password-file=… (else EXO_STORE, else the store key of "+e.displayUserFile()+", else EXO_HOME/store.url)")
	cmd.AddCommand(daemonStatusCmd(e), daemonStopCmd(e), daemonLogsCmd(e))
	return cmd
}

// running returns a client of the running daemon without starting one.
func (e *env) running(ctx context.Context) (*client.Client, string, error) {
	home, err := e.homeDir()
	if err != nil {
		return nil, "", err
	}
	c, err := client.Connect(ctx, home, client.ConnectOptions{NoStart: true})
	return c, home, err
}

func daemonStatusCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use: "status", Short: "Say whether the daemon runs, and what it does", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := context.Background()
			c, home, err := e.running(ctx)
			if errors.Is(err, api.ErrUnavailable) {
				// Exit 1 in both forms: scripts test the status, people read the text.
				if asJSON {
					if err := writeJSON(e.stdout, map[string]any{"running": false, "home": home}); err != nil {
						return err
					}
				} else {
					fmt.Fprintf(e.stdout, "no exo daemon runs for %s (the next exo command starts one)\n", home)
				}
				return &exitError{code: ExitFailure, err: errSilent}
			}
			if err != nil {
				return err
			}
			defer c.Close()
			act, err := c.Activity(ctx)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(e.stdout, map[string]any{"running": true, "daemon": c.Daemon(), "activity": act})
			}
			printStatus(e, c.Daemon(), act)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// printStatus renders the daemon's status.
func printStatus(e *env, d api.DaemonInfo, act api.Activity) {
	tw := table(e.stdout)
	fmt.Fprintf(tw, "daemon\tpid %d, up %s\n", d.Pid, time.Since(d.Started).Round(time.Second))
	fmt.Fprintf(tw, "EXO_HOME\t%s\n", d.Home)
	fmt.Fprintf(tw, "socket\t%s\n", d.Socket)
	fmt.Fprintf(tw, "build\t%.12s of %s (protocol %d)\n", d.Build, d.Built.Local().Format("2006-01-02 15:04"), d.Protocol)
	idle := "never"
	if d.IdleTimeout > 0 {
		idle = "after " + d.IdleTimeout.String() + " with no clients and no work"
	}
	fmt.Fprintf(tw, "exits\t%s\n", idle)
	fmt.Fprintf(tw, "running turns\t%d\n", len(act.Running))
	fmt.Fprintf(tw, "background tasks\t%d\n", act.Tasks)
	fmt.Fprintf(tw, "subagents\t%d\n", act.Agents)
	fmt.Fprintf(tw, "watching clients\t%d\n", act.Watchers)
	fmt.Fprintf(tw, "log\t%s\n", d.Log)
	tw.Flush()
}

func daemonStopCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use: "stop", Short: "Stop the daemon (running turns are cancelled and recorded as such)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := context.Background()
			c, home, err := e.running(ctx)
			if errors.Is(err, api.ErrUnavailable) {
				fmt.Fprintf(e.stderr, "no exo daemon runs for %s\n", home)
				return nil
			}
			if err != nil {
				return err
			}
			defer c.Close()
			if err := c.Stop(ctx); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "stopped the exo daemon (pid %d)\n", c.Daemon().Pid)
			return nil
		},
	}
}

func daemonLogsCmd(e *env) *cobra.Command {
	var follow bool
	cmd := &cobra.Command{
		Use: "logs", Short: "Print the daemon's log (EXO_HOME/daemon.log)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, err := e.homeDir()
			if err != nil {
				return err
			}
			return printLogFile(e, filepath.Join(home, client.LogName), follow)
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing what is appended")
	return cmd
}

// printLogFile copies a log file to stdout, following it when asked (until interrupted).
func printLogFile(e *env, path string, follow bool) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return usagef("no daemon log at %s yet", path)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := io.Copy(e.stdout, f); err != nil || !follow {
		return err
	}
	ctx, stop := e.signalContext()
	defer stop()
	for ctx.Err() == nil {
		time.Sleep(200 * time.Millisecond)
		if _, err := io.Copy(e.stdout, f); err != nil {
			return err
		}
	}
	return nil
}
