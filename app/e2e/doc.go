// Package e2e runs exo end to end: it builds the real binaries (exo-full and the thin exo, see
// exobuild) once and drives them as a user does, from the CLI, in tmux for the app, against
// recorded and scripted model providers, with a real daemon, etcd and sandboxes. It also holds
// the whole-process benchmarks of the daemon (BenchmarkRunStream, BenchmarkStreamVsInProcess,
// the warm-daemon and idle-CPU benchmarks). Its tests are in _test.go files only; crash tests
// with SIGKILL are in crash, a package of their own so they do not share this one's timeout.
package e2e
