package hooks

import (
	"context"
	"testing"
	"time"
)

// BenchmarkHookRun is the cost of one command hook: sh -c, JSON on stdin, answer parsed.
func BenchmarkHookRun(b *testing.B) {
	in := []byte(`{"tool_name":"bash","tool_input":{"command":"ls"}}`)
	for b.Loop() {
		res := execHook(context.Background(), `cat >/dev/null; echo '{"decision":"approve"}'`, b.TempDir(), nil, in, 10*time.Second)
		if o := parse(PreToolUse, res); o.decide != "allow" {
			b.Fatalf("%+v", o)
		}
	}
}
