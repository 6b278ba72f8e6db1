package cli

import (
	"errors"
	"fmt"
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

// usageErr marks an existing error as a usage error (exit 2).
func usageErr(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: ExitUsage, err: err}
}

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
