// Command exo is the exo a user types: a thin client that hands common command lines to the
// warm daemon and runs the full exo (exo-full, built from the module's root) for the rest. See
// package exo/app/thin.
package main

import (
	"os"

	"exo/app/thin"
)

func main() {
	os.Exit(thin.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
