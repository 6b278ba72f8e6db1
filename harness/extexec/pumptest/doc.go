// Package pumptest is a child process for the tests and benchmarks of exo's stdio message pump:
// the test binary runs itself with Env set to a framing ("rpc" for JSON-RPC lines as Codex's
// app-server writes them, "claude" for Claude Code's stream-json control protocol) and answers
// exo's requests by a small script of methods. It is a real process on real pipes, so what is
// measured and attacked is the pump as exo runs it; KillMidRequest is the kill -9 scenario both
// framings' tests share. It is used only by tests.
package pumptest
