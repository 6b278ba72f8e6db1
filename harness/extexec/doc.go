// Package extexec is the plumbing shared by exo's external executors: real agents (Claude Code,
// Codex, any ACP agent) that exo drives as the executor of a session while the harness keeps the
// log, the sandbox, the secrets and the policy.
//
// For every agent it provides:
//   - a per-session state folder under EXO_HOME (the agent's HOME, config and temp folders) and a
//     clean, allow-listed environment that never carries exo's secrets;
//   - the agent process: start, newline-delimited JSON in and out, a tail of its error output,
//     interruption and a kill of its whole process group;
//   - one message pump (Pump) for the stdio protocols exo speaks itself, Claude Code's
//     stream-json control protocol and JSON-RPC lines (RPC, Codex's app-server): replies to
//     their waiting requests, the agent's requests answered under the turn's context, the rest
//     queued for the turn, and a clear error to every waiter when the agent is gone;
//   - a loopback model endpoint per session that the agent calls with a per-session random token:
//     it forwards to the model registered in exo with the sealed key (which the agent never sees)
//     and records each call as step.started, model.requested and model.completed (usage, cost,
//     time to first token) or model.failed, so budgets and the status bar work as for exo's own
//     executor (relayed by httputil.ReverseProxy, tapped with provider.SSEReader, redacted);
//   - exo's tools (bash in the PTY sandbox, the file tools, background tasks) as an MCP server of
//     the official Go SDK, over streamable HTTP or an agent's in-band channel, whose calls run
//     through harness/executor exactly as exo's own executor runs them;
//   - finding an agent's program and its version (Binary).
//
// The adapters (packages claude, codex and acp) translate each agent's protocol into
// exo events on top of this.
package extexec
