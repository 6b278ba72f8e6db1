package exectest

import (
	"bytes"
	"exo/harness"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Traces are the places an agent's turn leaves bytes in: what the turn's result says, the
// request bodies the model server received, the agent's state folders, its process's
// environment and the session's events.
type Traces struct {
	Texts  []string
	Bodies [][]byte
	Roots  []string
	Pid    int
	Events []harness.Event
}

// NoSecretIn fails for each secret (name → value) found in any of tr's places.
func NoSecretIn(t testing.TB, secrets map[string]string, tr Traces) {
	t.Helper()
	var environ []byte
	if tr.Pid > 0 {
		environ, _ = os.ReadFile(fmt.Sprintf("/proc/%d/environ", tr.Pid))
	}
	for what, val := range secrets {
		v := []byte(val)
		for _, s := range tr.Texts {
			if bytes.Contains([]byte(s), v) {
				t.Errorf("%s is in the turn's result: %q", what, s)
			}
		}
		for i, b := range tr.Bodies {
			if bytes.Contains(b, v) {
				t.Errorf("%s is in request body %d", what, i)
			}
		}
		if bytes.Contains(environ, v) {
			t.Errorf("%s is in the agent's environment", what)
		}
		for _, e := range tr.Events {
			if bytes.Contains(e.Data, v) {
				t.Errorf("%s is in event %d (%s)", what, e.Seq, e.Type)
			}
		}
		for _, root := range tr.Roots {
			filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err != nil || !d.Type().IsRegular() {
					return nil
				}
				if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, v) {
					t.Errorf("%s is in %s", what, p)
				}
				return nil
			})
		}
	}
}
