package sandbox

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// newTestTasks returns a task manager whose completions arrive on the channel.
func newTestTasks(t *testing.T, cfg Config) (*TaskManager, chan TaskInfo) {
	done := make(chan TaskInfo, 10)
	m, err := NewTaskManager(cfg, testCaps(), func(ti TaskInfo) { done <- ti })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, done
}

func TestTaskStartPollKillNotify(t *testing.T) {
	cfg := testConfig(t)
	cfg.Artifacts = fileSink{dir: t.TempDir()}
	m, done := newTestTasks(t, cfg)
	start := time.Now()
	// Unique sleep lengths: the process scan below sees every process on the machine, and other
	// tests (here or in other checkouts) sleep 300 too.
	tag := fmt.Sprintf("30%d", time.Now().UnixNano()%1000000)
	ti, err := m.Start(fmt.Sprintf(`(setsid sleep %[1]s.7 &); echo "pid $$"; sleep %[1]s & i=0; while :; do i=$((i+1)); echo "line $i"; sleep 0.02; done`, tag), TaskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 5*time.Second || ti.State != TaskRunning || ti.ID == "" {
		t.Fatalf("start: %+v after %s", ti, time.Since(start))
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		info, err := m.Info(ti.ID)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(info.Output, "line 5\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no output so far: %+v", info)
		}
		time.Sleep(20 * time.Millisecond)
	}
	killed, err := m.Kill(ti.ID)
	if err != nil || killed.State != TaskKilled || killed.KillReason == "" {
		t.Fatalf("kill: %+v %v", killed, err)
	}
	note := <-done
	if note.ID != ti.ID || note.State != TaskKilled {
		t.Fatalf("completion: %+v", note)
	}
	waitGone(t, []int{ti.Pid})
	waitNoProcs(t, "sleep\x00"+tag+"\x00")
	if testCaps().PidNS {
		waitNoProcs(t, "sleep\x00"+tag+".7") // a daemon escapes only without a PID namespace.
	}
	if note.ArtifactRef == "" {
		t.Fatalf("no artifact: %+v", note)
	}
	full, _ := os.ReadFile(note.ArtifactRef)
	if !strings.Contains(string(full), "line 5\n") {
		t.Fatalf("artifact: %q", full)
	}
}

func TestTaskCompletesWithStatus(t *testing.T) {
	port := loopbackListener(t)
	m, done := newTestTasks(t, testConfig(t))
	var live lockedBuffer
	ti, err := m.Start(connectCmd(port)+"; echo err >&2; cat; printf '\\033]0;title\\007'; pwd; exit 7", TaskOptions{Stream: &live})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	fin, err := m.Wait(ctx, ti.ID)
	if err != nil || fin.State != TaskExited || fin.ExitCode != 7 {
		t.Fatalf("wait: %+v %v", fin, err)
	}
	wantNet := "REFUSED"
	if !testCaps().NetNS {
		wantNet = "CONNECTED"
	}
	if !strings.Contains(fin.Output, wantNet) || !strings.Contains(fin.Output, "err\n") || !strings.HasSuffix(fin.Output, "/ws\n") {
		t.Fatalf("output: %q", fin.Output)
	}
	if live.String() != fin.Output {
		t.Fatalf("live stream %q vs output %q", live.String(), fin.Output)
	}
	if n := <-done; n.ID != ti.ID || n.ExitCode != 7 {
		t.Fatalf("notification: %+v", n)
	}
	if list := m.List(); len(list) != 1 || list[0].ID != ti.ID {
		t.Fatalf("list: %+v", list)
	}
}

func TestTaskTimeout(t *testing.T) {
	m, _ := newTestTasks(t, testConfig(t))
	ti, err := m.Start("sleep 300", TaskOptions{Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	fin, err := m.Wait(context.Background(), ti.ID)
	if err != nil || fin.State != TaskKilled || !strings.HasPrefix(fin.KillReason, "timeout") {
		t.Fatalf("timeout: %+v %v", fin, err)
	}
}
