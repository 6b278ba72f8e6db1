package sandbox

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"exo/themes/termsafe"
)

// task is one background process and its captured output.
type task struct {
	mu      sync.Mutex
	id, cmd string
	dir     string
	enf     Enforcement
	pid     int
	proc    *exec.Cmd
	out     *os.File
	model   *termsafe.Sanitizer
	display *termsafe.Sanitizer
	stream  io.Writer
	capture *capture
	filter  OutputFilter
	art     ArtifactWriter
	artErr  error
	state   TaskState
	code    int
	why     string
	ref     string
	notes   []string
	started time.Time
	ended   time.Time
	readEnd chan struct{}
	done    chan struct{}
}

// newTask prepares a task reading from out.
func newTask(id, command, dir string, enf Enforcement, limit int, out *os.File) *task {
	return &task{
		id: id, cmd: command, dir: dir, enf: enf, out: out, model: newSanitizer(false),
		capture: newCapture(limit, nil, id), state: TaskRunning, code: -1, started: time.Now(),
		readEnd: make(chan struct{}), done: make(chan struct{}),
	}
}

// readLoop copies output into the capture and the artifact until the pipe closes.
func (t *task) readLoop() {
	defer close(t.readEnd)
	buf := make([]byte, 64<<10)
	for {
		n, err := t.out.Read(buf)
		if n > 0 {
			t.mu.Lock()
			text := t.model.Feed(buf[:n])
			if t.filter != nil {
				text = t.filter.Next(text)
			}
			t.keep(text)
			if t.stream != nil {
				t.stream.Write(t.display.Feed(buf[:n]))
			}
			t.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// keep stores model text in the capture and the artifact; the caller holds t.mu.
func (t *task) keep(text []byte) {
	t.capture.Write(text)
	if t.art != nil && t.artErr == nil {
		if _, werr := t.art.Write(text); werr != nil {
			t.artErr = fmt.Errorf("write task artifact: %w", werr)
		}
	}
}

// drainWait bounds how long output is drained after the task's main process exits.
const drainWait = time.Second

// supervise waits for the process (or its timeout), kills leftovers, finishes the
// artifact and announces completion.
func (t *task) supervise(timeout time.Duration, onDone func(TaskInfo)) {
	var timer <-chan time.Time
	if timeout > 0 {
		tm := time.NewTimer(timeout)
		defer tm.Stop()
		timer = tm.C
	}
	exited := make(chan struct{})
	go func() { t.proc.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-timer:
		t.kill(fmt.Sprintf("timeout after %s", timeout))
		<-exited
	}
	select {
	case <-t.readEnd:
	case <-time.After(drainWait):
	}
	killGroup(t.pid) // whatever the task left behind belongs to it.
	removeCgroup(t.proc)
	t.out.Close()
	<-t.readEnd
	t.finish()
	// onDone runs before done closes, so Kill and Close return only after the completion was
	// handled (the harness records it before its store closes).
	if onDone != nil {
		onDone(t.info())
	}
	close(t.done)
}

// kill stops the task's whole session.
func (t *task) kill(why string) {
	t.mu.Lock()
	if t.state == TaskRunning && t.why == "" {
		t.why = why
	}
	t.mu.Unlock()
	killGroup(t.pid)
}

// finish records the exit status and commits the artifact.
func (t *task) finish() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.filter != nil {
		t.keep(t.filter.Flush())
	}
	t.ended = time.Now()
	t.state, t.code = TaskExited, exitStatus(t.proc.ProcessState)
	if t.why != "" {
		t.state = TaskKilled
	}
	if t.art == nil {
		return
	}
	if t.artErr == nil {
		t.ref, t.artErr = t.art.Commit()
	} else {
		t.art.Abort()
	}
	if t.artErr != nil {
		t.notes = append(t.notes, t.artErr.Error())
	}
}

// exitStatus converts a process state to a shell-style exit code.
func exitStatus(st *os.ProcessState) int {
	if st == nil {
		return -1
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

// info returns a copy of the task's state.
func (t *task) info() TaskInfo {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := t.capture.snapshot()
	return TaskInfo{
		ID: t.id, Command: t.cmd, Dir: t.dir, Pid: t.pid, State: t.state, ExitCode: t.code,
		KillReason: t.why, Started: t.started, Ended: t.ended, TotalBytes: t.capture.total,
		ArtifactRef: t.ref, Output: out, Notes: append([]string(nil), t.notes...), Enforcement: t.enf,
	}
}
