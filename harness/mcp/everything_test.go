package mcp

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/executor"
)

// A server's env gets the secret its config names (expanded from the sealed store) and nothing
// else of exo's environment; the value it echoes back is redacted in every event.
func TestEverythingServerEnvGetsOnlyNamedSecrets(t *testing.T) {
	entry := npmServer(t, "server-everything")
	r := newRig(t, map[string]ServerConfig{
		"every": {Command: "node", Args: []string{entry, "stdio"}, Env: map[string]string{"SERVICE_TOKEN": "${secret:svc-token}", "PLAIN": "${MISSING:-fallback}"}, Approval: "auto"},
	}, `
name: env
turns:
  - tool_calls:
      - name: mcp__every__get-env
        args: {}
  - text: Done.
`)
	const svc = "svc-Zq81-very-secret-token-value"
	const other = "sk-other-Hh27-not-for-the-server"
	if err := r.h.SetSecret("svc-token", []byte(svc)); err != nil {
		t.Fatal(err)
	}
	if err := r.h.SetSecret("openai", []byte(other)); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_API_KEY", other)
	r.run(t, executor.Options{})
	out := byTool(t, r, "mcp__every__get-env")
	if len(out) != 1 || out[0].IsError {
		t.Fatalf("get-env %+v", out)
	}
	text := out[0].Output
	if !strings.Contains(text, "‹secret:svc-token›") || !strings.Contains(text, `"PLAIN": "fallback"`) {
		t.Fatalf("the server did not get its configured env (redacted): %s", text)
	}
	if strings.Contains(text, "OPENAI_API_KEY") || strings.Contains(text, "‹secret:openai›") {
		t.Fatalf("exo's own secrets reached the server: %s", text)
	}
	all := allEventBytes(t, r.h, r.s.ID)
	for _, v := range []string{svc, other} {
		if strings.Contains(all, v) {
			t.Fatalf("a secret value is in the events: %q", v)
		}
	}
}

// A confined stdio server cannot read exo's home: the filesystem server is given EXO_HOME as
// an allowed directory and still finds no key file or database there.
func TestConfinedServerCannotReadExoHome(t *testing.T) {
	entry := npmServer(t, "server-filesystem")
	r := newRig(t, nil, "name: x\nturns:\n  - text: hi\n")
	home := r.h.Home()
	(&File{MCPServers: map[string]ServerConfig{"fs": {Command: "node", Args: []string{entry, ".", home}, Approval: "auto"}}}).Write(r.ws + "/" + ProjectFile)
	if !r.h.Capabilities().MountNS {
		t.Skip("no mount namespaces here: exo's home cannot be masked (documented)")
	}
	res := r.m.Call(t.Context(), executor.ExtCall{Session: r.s.ID, Branch: r.s.Branch, Workspace: r.ws, Name: "mcp__fs__list_directory", Args: []byte(fmt.Sprintf(`{"path":%q}`, home))})
	if strings.Contains(res.Text, "secret.key") || strings.Contains(res.Text, "exo.db") {
		t.Fatalf("the server sees exo's home: %s", res.Text)
	}
	res = r.m.Call(t.Context(), executor.ExtCall{Session: r.s.ID, Branch: r.s.Branch, Workspace: r.ws, Name: "mcp__fs__read_text_file", Args: []byte(fmt.Sprintf(`{"path":%q}`, home+"/secret.key"))})
	if !res.IsError {
		t.Fatalf("the server read exo's key file: %s", res.Text)
	}
}

// Killing the server in the middle of a call gives a clear error and a crashed event; the
// next call starts it again.
func TestServerCrashMidCallIsRestartedOnNextCall(t *testing.T) {
	entry := npmServer(t, "server-everything")
	r := newRig(t, map[string]ServerConfig{"every": {Command: "node", Args: []string{entry, "stdio"}, Approval: "auto"}}, `
name: crash
turns:
  - tool_calls:
      - name: mcp__every__trigger-long-running-operation
        args: {duration: 90, steps: 90}
  - tool_calls:
      - name: mcp__every__echo
        args: {message: back again}
  - text: Done.
`)
	ch, stop := r.h.Subscribe(256)
	defer stop()
	go func() {
		for n := range ch {
			for _, e := range n.Events {
				if e.Type == harness.TypeToolStarted && strings.Contains(string(e.Data), "long-running") {
					time.Sleep(500 * time.Millisecond)
					r.killServer(t, "every")
					return
				}
			}
		}
	}()
	r.run(t, executor.Options{})
	long := byTool(t, r, "mcp__every__trigger-long-running-operation")
	if len(long) != 1 || !long[0].IsError || !strings.Contains(long[0].Output, "crashed") || long[0].DurationMs > 60_000 {
		t.Fatalf("crashed call %+v", long)
	}
	echo := byTool(t, r, "mcp__every__echo")
	if len(echo) != 1 || echo[0].IsError || !strings.Contains(echo[0].Output, "back again") {
		t.Fatalf("call after the crash %+v", echo)
	}
	var states []string
	for _, e := range events[harness.MCPServer](t, r.h, r.s.ID, harness.TypeMCPServer) {
		states = append(states, fmt.Sprintf("%s/%d", e.State, e.Restarts))
	}
	if got := strings.Join(states, " "); got != "connected/0 crashed/0 connected/1" {
		t.Fatalf("mcp.server states %q", got)
	}
}

// A call past the server's timeout kills it (a hang) and the next call starts it again.
func TestServerHangIsKilledAtTimeout(t *testing.T) {
	entry := npmServer(t, "server-everything")
	r := newRig(t, map[string]ServerConfig{"every": {Command: "node", Args: []string{entry, "stdio"}, Approval: "auto", Timeout: 2}}, `
name: hang
turns:
  - tool_calls:
      - name: mcp__every__trigger-long-running-operation
        args: {duration: 60, steps: 2}
  - tool_calls:
      - name: mcp__every__echo
        args: {message: alive}
  - text: Done.
`)
	r.run(t, executor.Options{})
	long := byTool(t, r, "mcp__every__trigger-long-running-operation")
	if len(long) != 1 || !long[0].IsError || !strings.Contains(long[0].Output, "hung") || long[0].DurationMs > 50_000 {
		t.Fatalf("hung call %+v", long)
	}
	if echo := byTool(t, r, "mcp__every__echo"); len(echo) != 1 || !strings.Contains(echo[0].Output, "alive") {
		t.Fatalf("call after the hang %+v", echo)
	}
	var hung bool
	for _, e := range events[harness.MCPServer](t, r.h, r.s.ID, harness.TypeMCPServer) {
		hung = hung || (e.State == harness.MCPHung && strings.Contains(e.Error, "killed"))
	}
	if !hung {
		t.Fatal("no mcp.server hung event")
	}
}

// The everything server over streamable HTTP on loopback, with a header from a sealed secret.
func TestEverythingServerOverStreamableHTTP(t *testing.T) {
	entry := npmServer(t, "server-everything")
	port := freePort(t)
	srv := exec.Command("node", entry, "streamableHttp")
	srv.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	srv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-srv.Process.Pid, syscall.SIGKILL); srv.Wait() })
	waitPort(t, port)
	r := newRig(t, map[string]ServerConfig{"web": {Type: "http", URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port),
		Headers: map[string]string{"Authorization": "Bearer ${secret:web-token}"}, Approval: "auto"}}, `
name: http
turns:
  - tool_calls:
      - name: mcp__web__get-sum
        args: {a: 2, b: 40}
  - text: Done.
`)
	r.h.SetSecret("web-token", []byte("tok-Ww-http-header-value"))
	r.run(t, executor.Options{})
	sum := byTool(t, r, "mcp__web__get-sum")
	if len(sum) != 1 || sum[0].IsError || !strings.Contains(sum[0].Output, "42") {
		t.Fatalf("get-sum over http %+v", sum)
	}
	if strings.Contains(allEventBytes(t, r.h, r.s.ID), "tok-Ww-http-header-value") {
		t.Fatal("the header secret is in the events")
	}
}

// killServer kills a connected server's process group, as a crash would.
func (r *rig) killServer(t *testing.T, name string) {
	p, _ := r.m.pool(r.ws)
	c := p.conn(name)
	c.mu.Lock()
	cmd := c.cmd
	c.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		t.Error("no server process to kill")
		return
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func waitPort(t *testing.T, port int) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("nothing listens on port %d", port)
}

// A server that dies between calls is recorded as crashed when it happens, in the session that
// used it, before any further call; the next call starts it again (recorded as a restart).
func TestServerCrashBetweenCallsIsRecordedAtOnce(t *testing.T) {
	entry := npmServer(t, "server-everything")
	r := newRig(t, map[string]ServerConfig{"every": {Command: "node", Args: []string{entry, "stdio"}, Approval: "auto"}}, "name: x\nturns:\n  - text: hi\n")
	call := func(msg string) executor.ExtResult {
		return r.m.Call(t.Context(), executor.ExtCall{Session: r.s.ID, Branch: r.s.Branch, Workspace: r.ws, Name: "mcp__every__echo", Args: []byte(fmt.Sprintf(`{"message":%q}`, msg))})
	}
	if res := call("first"); res.IsError || !strings.Contains(res.Text, "first") {
		t.Fatalf("first call: %+v", res)
	}
	ch, stop := r.h.Subscribe(64)
	defer stop()
	r.killServer(t, "every")
	crashed := waitEvent(t, ch, func(e harness.MCPServer) bool { return e.State == harness.MCPCrashed })
	if !strings.Contains(crashed.Error, "between calls") || crashed.Server != "every" {
		t.Fatalf("crashed event %+v", crashed)
	}
	if res := call("second"); res.IsError || !strings.Contains(res.Text, "second") {
		t.Fatalf("call after the crash: %+v", res)
	}
	var states []string
	for _, e := range events[harness.MCPServer](t, r.h, r.s.ID, harness.TypeMCPServer) {
		states = append(states, fmt.Sprintf("%s/%d", e.State, e.Restarts))
	}
	if got := strings.Join(states, " "); got != "connected/0 crashed/0 connected/1" {
		t.Fatalf("mcp.server states %q", got)
	}
	if st, _ := r.m.Status(r.ws); len(st) != 1 || st[0].State != harness.MCPConnected || st[0].Restarts != 1 {
		t.Fatalf("status %+v", st)
	}
}

// waitEvent waits (up to a minute) for an mcp.server event that matches.
func waitEvent(t *testing.T, ch <-chan harness.Notice, match func(harness.MCPServer) bool) harness.MCPServer {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case n := <-ch:
			for _, e := range n.Events {
				if e.Type != harness.TypeMCPServer {
					continue
				}
				p, err := harness.Decode(e)
				if err == nil && match(*p.(*harness.MCPServer)) {
					return *p.(*harness.MCPServer)
				}
			}
		case <-timeout:
			t.Fatal("no matching mcp.server event within a minute")
		}
	}
}
