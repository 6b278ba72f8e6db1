package daemon

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"exo/harness/secrets"
)

// TestDaemonLogRedacts logs a sealed value the ways the daemon's log lines can carry one (the
// message, a string attribute slog quotes, an error) through the daemon's writer: daemon.log's
// bytes keep none of it, and lines logged before the harness is open pass unchanged.
func TestDaemonLogRedacts(t *testing.T) {
	const v = `tok/Qz7+Wx9=Kp "Rv" <Lm&Nj> Ty?Hb`
	var out bytes.Buffer
	w := &redactingLog{w: &out}
	log := slog.New(slog.NewTextHandler(w, nil))
	log.Info("before the harness is open")
	w.setRedact(secrets.NewRedactor(map[string][]byte{"tok": []byte(v)}).String)
	log.Warn("plugin failed: " + v)
	log.Info("recovered", "problems", []string{"bad " + v}, "reason", v, "err", errors.New("open "+v+": no such file"))
	got := out.String()
	if !strings.Contains(got, "before the harness is open") || strings.Count(got, secrets.Label("tok")) != 4 {
		t.Fatalf("log:\n%s", got)
	}
	for i := 0; i+secrets.MinPartial <= len(v); i++ {
		if strings.Contains(got, v[i:i+secrets.MinPartial]) {
			t.Fatalf("the log keeps %q:\n%s", v[i:i+secrets.MinPartial], got)
		}
	}
}
