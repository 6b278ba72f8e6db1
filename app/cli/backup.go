package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"exo/harness/api"
)

// backupCmd is `exo backup [FILE]`.
func backupCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "backup [FILE]",
		Short: "Write a consistent copy of exo.db into EXO_HOME/backups (default exo-TIME.db) while exo runs on",
		Long: "Copies the event store from one read transaction of the daemon, so sessions may go on running;\n" +
			"the copy is synced and checked page by page before it is put at FILE, which must not exist.\n" +
			"FILE must be in EXO_HOME/backups, the one place no session's sandboxed commands can read\n" +
			"(they read the whole file system but EXO_HOME), named through no symbolic link; copy the\n" +
			"backup elsewhere yourself if you want it there.\n" +
			"It holds the sessions, their events and the sealed secrets, not the key that opens those\n" +
			"(EXO_HOME/secret.key: keep your own copy of it apart) nor artifacts' contents (EXO_HOME/artifacts).\n" +
			"To restore: exo daemon stop, copy FILE over EXO_HOME/exo.db, then exo verify.\n" +
			"A store on etcd is backed up with etcdctl snapshot save instead.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := ""
			if len(args) == 1 {
				if args[0] == "" {
					return usageErr(fmt.Errorf("the backup file name is empty"))
				}
				abs, err := filepath.Abs(args[0])
				if err != nil {
					return usageErr(err)
				}
				path = abs
			}
			return e.withClient(func(ctx context.Context, c api.Client) error {
				res, err := c.Backup(ctx, path)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(e.stdout, res)
				}
				home, _ := e.homeDir()
				fmt.Fprintf(e.stdout, "backed up %s to %s\n", humanBytes(res.Bytes), res.Path)
				fmt.Fprintf(e.stderr, "to restore: exo daemon stop; cp %s %s; exo verify\n", shellQuote(res.Path), shellQuote(filepath.Join(home, "exo.db")))
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"path": …, "bytes": …}`)
	return cmd
}
