package hooks

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// maxOutput bounds what is kept of a hook's stdout and of its stderr.
const maxOutput = 64 << 10

// hookEnv lists the variables of exo's environment a hook inherits; API keys stay out.
var hookEnv = []string{"PATH", "HOME", "LANG", "USER", "LOGNAME", "SHELL", "TZ", "TERM"}

// execResult is one finished hook command.
type execResult struct {
	code     int
	stdout   string
	stderr   string
	timedOut bool
	err      error
	took     time.Duration
}

// execHook runs a hook's command with sh -c in dir, the input on stdin, and kills its process
// group at the timeout.
func execHook(ctx context.Context, command, dir string, extraEnv []string, input []byte, timeout time.Duration) execResult {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = append(baseEnv(), extraEnv...)
	cmd.Stdin = bytes.NewReader(input)
	var out, errb capped
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return execResult{code: -1, err: err}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	timedOut := false
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
		timedOut = true
	}
	r := execResult{stdout: out.String(), stderr: errb.String(), timedOut: timedOut, took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		r.code, r.err = -1, err
	}
	return r
}

// baseEnv is the allow-listed part of exo's environment.
func baseEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		for _, a := range hookEnv {
			if k == a || strings.HasPrefix(k, "LC_") {
				out = append(out, kv)
				break
			}
		}
	}
	return out
}

// capped keeps the first maxOutput bytes written to it.
type capped struct{ buf bytes.Buffer }

// Write keeps what fits and reports everything written.
func (c *capped) Write(p []byte) (int, error) {
	if room := maxOutput - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// String returns what was kept.
func (c *capped) String() string { return c.buf.String() }
