package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"exo/harness/api"
)

func secretCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "secret", Short: "Seal API keys and other secrets (values are never shown)"}
	cmd.AddCommand(secretSetCmd(e), secretLsCmd(e), secretRmCmd(e))
	return cmd
}

func secretSetCmd(e *env) *cobra.Command {
	var fromEnv string
	var fromStdin bool
	cmd := &cobra.Command{
		Use:   "set NAME (--env VAR | --stdin)",
		Short: "Seal a secret from an environment variable or standard input",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var value []byte
			switch {
			case fromEnv != "" && fromStdin:
				return usagef("give --env VAR or --stdin, not both")
			case fromEnv != "":
				v, ok := os.LookupEnv(fromEnv)
				if !ok || v == "" {
					return usagef("environment variable %s is not set", fromEnv)
				}
				value = []byte(v)
			case fromStdin:
				b, err := e.stdinText()
				if err != nil {
					return err
				}
				value = bytes.TrimRight([]byte(b), "\r\n")
			default:
				return usagef("give --env VAR or --stdin (values are never taken as arguments, where shell history would keep them)")
			}
			if len(value) == 0 {
				return usagef("the secret is empty")
			}
			return e.withClient(func(ctx context.Context, c api.Client) error {
				if err := c.SetSecret(ctx, args[0], value); err != nil {
					return usageErr(err)
				}
				fmt.Fprintf(e.stdout, "sealed %s (%d bytes); it is redacted as ‹secret:%s› wherever it appears\n", args[0], len(value), args[0])
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&fromEnv, "env", "", "read the value from this environment variable")
	cmd.Flags().BoolVar(&fromStdin, "stdin", false, "read the value from standard input")
	return cmd
}

func secretLsCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use: "ls", Short: "List sealed secrets: names and dates only", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withClient(func(ctx context.Context, c api.Client) error {
				infos, err := c.Secrets(ctx)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(e.stdout, infos)
				}
				if len(infos) == 0 {
					fmt.Fprintln(e.stdout, "no secrets: seal one with 'exo secret set NAME --env VAR'")
					return nil
				}
				tw := table(e.stdout)
				fmt.Fprintln(tw, "NAME\tCREATED\tUPDATED\tSTATE")
				for _, in := range infos {
					state := "sealed"
					if in.Unreadable {
						state = "unreadable (key changed): set it again or remove it"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", in.Name, in.Created.Local().Format("2006-01-02 15:04"), in.Updated.Local().Format("2006-01-02 15:04"), state)
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func secretRmCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use: "rm NAME", Short: "Remove a sealed secret", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withClient(func(ctx context.Context, c api.Client) error { return usageErr(c.RemoveSecret(ctx, args[0])) })
		},
	}
}
