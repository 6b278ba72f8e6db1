// Package crash kills the real exo binary with SIGKILL at chosen steps of its multi-step
// operations (EXO_FAILPOINT, see store/failpoint) and checks that the next command finds
// everything in order. It is a package of its own so that its many processes do not share the
// end-to-end tests' timeout.
package crash
