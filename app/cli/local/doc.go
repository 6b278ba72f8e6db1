// Package local is the work a few of exo's commands do in the calling process with the
// harness's packages rather than through the daemon: reading the user's configuration, writing
// governance and MCP files, explaining a store the daemon cannot open, probing a local Ollama,
// serving MCP on stdio and running a detached task. app/cli declares these as hooks (cli.Local)
// and links only the daemon's client and api; Main, the whole of exo-full's and exo-daemon's
// mains, gives it Hooks and RunDaemon. It may import the harness and its packages; nothing but a
// main imports it.
package local
