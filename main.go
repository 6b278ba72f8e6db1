// Command exo is a full-screen terminal agent harness: an event-sourced log of agent sessions with
// fork, rewind, PTY sandboxes and side-by-side monitoring.
package main

import "fmt"

func main() {
	fmt.Println("exo: under construction")
}
