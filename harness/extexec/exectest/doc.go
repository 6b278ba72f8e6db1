// Package exectest holds the scenarios the tests of every external executor (claude, codex, acp)
// share, written once: the agent killed with SIGKILL in the middle of a turn (KillMidTurn), and
// sealed secrets carried through a turn that must leave no trace (SealedSecrets, NoSecretIn).
// Each adapter's test builds its own fixture (its agent, its model server) and hands the
// scenario the executor's runner; the assertions are the scenario's. It is used only by tests.
package exectest
