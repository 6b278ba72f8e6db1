package sandbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"exo/sandbox"
)

// Example shows a session's shell: exo's main.go dispatches the hidden subcommand to
// sandbox.HelperMain, and the harness probes once and starts one shell per session.
func Example() {
	// In main.go: if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand {
	//         os.Exit(sandbox.HelperMain(os.Args[2:])) }
	dir, _ := os.MkdirTemp("", "exo-example-")
	defer os.RemoveAll(dir)
	ws := filepath.Join(dir, "ws")
	os.Mkdir(ws, 0o755)
	sh, err := sandbox.NewShell(sandbox.Config{
		Workspace: ws,
		TmpDir:    filepath.Join(dir, "tmp"),
		Helper:    []string{os.Args[0], sandbox.HelperCommand}, // exo itself by default
		Fallback:  sandbox.RunUnconfined,
	}, sandbox.Probe())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sh.Close()
	sh.Run(context.Background(), "cd /; export GREETING=hello", sandbox.RunOptions{})
	r, _ := sh.Run(context.Background(), `echo "$GREETING from $PWD"; exit_code() { return 3; }; exit_code`, sandbox.RunOptions{})
	fmt.Printf("%q exit=%d\n", r.Output, r.ExitCode)
	// Output: "hello from /\n" exit=3
}
