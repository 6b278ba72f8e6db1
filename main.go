// Command exo is a full-screen terminal agent harness: an event-sourced log of agent sessions with
// fork, rewind, PTY sandboxes and side-by-side monitoring.
package main

import (
	"os"

	"exo/app/cli"
)

func main() {
	os.Exit(cli.Execute(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
