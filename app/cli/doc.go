// Package cli is exo's command line: one file per command group, all reaching state through the
// harness API. Of exo it links only api, the daemon's client, the app and the thin client's
// leaves (app/e2e/layering holds that): the few commands that run the harness's own code in
// this process (configuration, governance and MCP files, a damaged store's diagnosis, mcp serve,
// the detached-task runner) call the hooks of Local, which main.go gives from app/cli/local,
// as it gives RunDaemon.
package cli
