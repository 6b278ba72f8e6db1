package workspaces

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"exo/harness/api"
	"exo/harness/runtimes"
	"exo/harness/sessions"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// memTracer installs an in-memory tracer provider for the test and restores the previous one.
func memTracer(t *testing.T) *tracetest.InMemoryExporter {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev); tp.Shutdown(context.Background()) })
	return exp
}

// sandboxSpans returns the session's sandbox.exec spans by mode, their attributes as text.
func sandboxSpans(exp *tracetest.InMemoryExporter, session string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, s := range exp.GetSpans() {
		if s.Name != "sandbox.exec" {
			continue
		}
		a := map[string]string{}
		for _, kv := range s.Attributes {
			a[string(kv.Key)] = kv.Value.String()
		}
		if a["gen_ai.conversation.id"] == session {
			a["status"] = s.Status.Code.String()
			a["duration"] = s.EndTime.Sub(s.StartTime).String()
			out[a["exo.sandbox.mode"]] = a
		}
	}
	return out
}

// Commands the user (exo exec, exo mcp serve's exec) runs in the shell, background tasks and
// detached tasks are each a sandbox.exec span with the redacted command line, the exit code and
// the mode; a background task's span covers its run, not just its start.
func TestSandboxCommandsAreSpans(t *testing.T) {
	exp := memTracer(t)
	h := openTest(t)
	s, err := h.NewSession(sessions.NewSessionOptions{Name: "spans", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	const secret = "sk-span-Pp31-sealed-value"
	if err := h.SetSecret("tok", []byte(secret)); err != nil {
		t.Fatal(err)
	}
	if _, err := h.UserExec(context.Background(), s.ID, "echo "+secret+" >/dev/null; exit 3", ExecOptions{}); err != nil {
		t.Fatal(err)
	}
	ch, stop := h.Subscribe(64)
	defer stop()
	if _, err := h.StartTask(s.ID, s.Branch, "call-1", "sleep 0.3; echo done"); err != nil {
		t.Fatal(err)
	}
	waitType(t, ch, api.TypeTaskCompleted)
	if _, err := h.StartDetached(s.ID, "echo detached; exit 5", os.Args[0]); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for sandboxSpans(exp, s.ID)[runtimes.SandboxDetached] == nil && time.Now().Before(deadline) {
		h.RecordDetached()
		time.Sleep(20 * time.Millisecond)
	}
	got := sandboxSpans(exp, s.ID)
	sh, task, det := got[runtimes.SandboxShell], got[runtimes.SandboxTask], got[runtimes.SandboxDetached]
	if sh == nil || task == nil || det == nil {
		t.Fatalf("sandbox spans by mode: %v", got)
	}
	if !strings.Contains(sh["process.command_line"], "‹secret:tok›") || strings.Contains(sh["process.command_line"], secret) ||
		sh["process.exit.code"] != "3" || sh["status"] != "Error" {
		t.Fatalf("shell span %v", sh)
	}
	if task["process.exit.code"] != "0" || !strings.HasPrefix(task["process.command_line"], "sleep 0.3") {
		t.Fatalf("task span %v", task)
	}
	if d, _ := time.ParseDuration(task["duration"]); d < 250*time.Millisecond {
		t.Fatalf("the task's span lasts %s, not its run", task["duration"])
	}
	if det["process.exit.code"] != "5" || det["process.command_line"] != "echo detached; exit 5" {
		t.Fatalf("detached span %v", det)
	}
}

// waitType waits (up to a minute) for an event of a type among the notices.
func waitType(t *testing.T, ch <-chan api.Notice, typ string) {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case n := <-ch:
			for _, e := range n.Events {
				if e.Type == typ {
					return
				}
			}
		case <-timeout:
			t.Fatalf("no %s within a minute", typ)
		}
	}
}
