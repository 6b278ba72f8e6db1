package cli

import (
	"errors"
	"fmt"
	"strings"

	"exo/harness/api"
)

// Exit codes shared by every command.
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitStepLimit   = 3
	ExitInterrupted = 130
)

// errSilent is an exit status that needs no message (a command's own non-zero exit).
var errSilent = errors.New("")

// exitError carries an exit code with its message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usagef returns an error that exits 2: a bad argument, an unknown session, a bad seq.
func usagef(format string, a ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, a...)}
}

// usageErr marks an existing error as a usage error (exit 2), unless it says the store did not
// answer: that is no fault of the command line (exit 1).
func usageErr(err error) error {
	if err == nil {
		return nil
	}
	if api.HasCode(err, api.CodeUnreachable) {
		return unreachableErr(err)
	}
	return &exitError{code: ExitUsage, err: err}
}

// unreachableText is what the store's ErrUnreachable says.
const unreachableText = "the store is unreachable"

// unreachableErr says, first, that the store did not answer (exit 1).
func unreachableErr(err error) error {
	msg := strings.Replace(err.Error(), unreachableText+": ", "", 1)
	return &exitError{code: ExitFailure, err: &reworded{msg: unreachableText + " (the daemon's etcd cluster did not answer; exo doctor says what it reaches): " + msg, err: err}}
}

// reworded is an error said in other words, still matching what it wraps.
type reworded struct {
	msg string
	err error
}

func (r *reworded) Error() string { return r.msg }
func (r *reworded) Unwrap() error { return r.err }

// UsageError marks err as a usage error (exit 2), for the hooks main.go gives (see Local).
func UsageError(err error) error { return usageErr(err) }

// failf returns an error that exits with code.
func failf(code int, format string, a ...any) error {
	return &exitError{code: code, err: fmt.Errorf(format, a...)}
}

// exitCode maps an error to the process exit code.
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	return ExitFailure
}
