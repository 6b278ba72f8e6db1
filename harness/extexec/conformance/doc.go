// Package conformance is the one suite of behaviours every executor of exo must show, written
// once and run against each: exo's own executor, Claude Code, Codex, and the ACP agents
// (claude-agent-acp, codex-acp, the Gemini CLI). Like the store's conformance suite, each
// behaviour is a function of an adapter description (Adapter): the adapter says how to open its
// executor, which wire its model speaks and what its model calls exo's bash; the suite owns the
// scripted model, the assertions and the attacks (sealed secrets searched in bytes, exo's home
// probed from the agent's own commands).
//
// An adapter's package runs the suite from one small test (Run). Where an adapter genuinely
// cannot show a behaviour, its description says why (Adapter.NotApplicable) and the suite skips
// that behaviour with the reason, so the matrix in README.md is read off the test output.
// It is used only by tests.
package conformance
