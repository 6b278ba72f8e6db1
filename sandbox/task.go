package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// TaskState is the life-cycle state of a background task.
type TaskState string

// Task states.
const (
	TaskRunning TaskState = "running"
	TaskExited  TaskState = "exited"
	TaskKilled  TaskState = "killed"
)

// ErrNoTask is returned for an unknown task handle.
var ErrNoTask = errors.New("no such task")

// TaskOptions tune one background task.
type TaskOptions struct {
	// Dir is the working directory; default the workspace.
	Dir string
	// Timeout kills the task after this long; zero means no limit.
	Timeout time.Duration
	// Name labels the output artifact.
	Name string
	// Stream receives the output live, sanitized for display (see RunOptions.Stream).
	Stream io.Writer
	// Filter, when set, rewrites the model text before it is kept (see RunOptions.Filter).
	Filter OutputFilter
}

// TaskInfo is a snapshot of a background task's state.
type TaskInfo struct {
	ID          string      // ID is the task handle.
	Command     string      // Command is the shell command.
	Dir         string      // Dir is the working directory.
	Pid         int         // Pid is the task's process id.
	State       TaskState   // State is running, exited or killed.
	ExitCode    int         // ExitCode is the status once ended, -1 before.
	KillReason  string      // KillReason says why it was killed.
	Started     time.Time   // Started is when it started.
	Ended       time.Time   // Ended is when it ended (zero while running).
	TotalBytes  int64       // TotalBytes counts the model text so far.
	ArtifactRef string      // ArtifactRef is the full output, set once ended.
	Output      string      // Output is head and tail of the output (complete once ended).
	Notes       []string    // Notes report artifact failures and the like.
	Enforcement Enforcement // Enforcement is the confinement it runs under.
}

// TaskManager runs commands in the background as separate confined processes (same
// helper, environment and confinement as the shell), each in its own session.
type TaskManager struct {
	cfg    Config
	enf    Enforcement
	onDone func(TaskInfo)
	mu     sync.Mutex
	tasks  map[string]*task
	seq    int
	closed bool
}

// NewTaskManager prepares background execution for cfg; onDone (may be nil) is called
// once per task when it ends, from the task's own goroutine, before Wait, Kill and
// Close return for that task (so onDone must not call them for it).
func NewTaskManager(cfg Config, caps Capabilities, onDone func(TaskInfo)) (*TaskManager, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, err
	}
	enf, err := plan(cfg, caps)
	if err != nil {
		return nil, fmt.Errorf("new task manager for %s: %w", cfg.Workspace, err)
	}
	return &TaskManager{cfg: cfg, enf: enf, onDone: onDone, tasks: map[string]*task{}}, nil
}

// Start starts command in the background and returns its handle at once.
func (m *TaskManager) Start(command string, opts TaskOptions) (TaskInfo, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return TaskInfo{}, ErrClosed
	}
	m.seq++
	id := fmt.Sprintf("task-%d", m.seq)
	m.mu.Unlock()
	t, err := m.spawn(id, command, opts)
	if err != nil {
		return TaskInfo{}, fmt.Errorf("start task %q: %w", command, err)
	}
	m.mu.Lock()
	m.tasks[id] = t
	m.mu.Unlock()
	go t.supervise(opts.Timeout, m.onDone)
	return t.info(), nil
}

// spawn starts the task's process with its output on a pipe.
func (m *TaskManager) spawn(id, command string, opts TaskOptions) (*task, error) {
	dir := opts.Dir
	if dir == "" {
		dir = m.cfg.Workspace
	}
	name := opts.Name
	if name == "" {
		name = id
	}
	shell, err := exec.LookPath("bash")
	if err != nil {
		shell = "/bin/sh"
	}
	cmd, err := helperCmd(m.cfg, m.enf, dir, shell, "-c", command)
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr.Setsid = true
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("output pipe: %w", err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	t := newTask(id, command, dir, m.enf, m.cfg.InlineLimit, r)
	t.filter = opts.Filter
	if opts.Stream != nil {
		t.stream, t.display = opts.Stream, newSanitizer(true)
	}
	if m.cfg.Artifacts != nil {
		t.art, t.artErr = m.cfg.Artifacts.NewArtifact(name)
	}
	if err := cmd.Start(); err != nil {
		removeCgroup(cmd)
		r.Close()
		w.Close()
		if t.art != nil {
			t.art.Abort()
		}
		return nil, err
	}
	w.Close()
	t.proc, t.pid = cmd, cmd.Process.Pid
	go t.readLoop()
	return t, nil
}

// get finds a task by handle.
func (m *TaskManager) get(id string) (*task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tasks[id]
	if !ok {
		return nil, fmt.Errorf("task %s: %w", id, ErrNoTask)
	}
	return t, nil
}

// Info returns the task's current state, including its output so far.
func (m *TaskManager) Info(id string) (TaskInfo, error) {
	t, err := m.get(id)
	if err != nil {
		return TaskInfo{}, err
	}
	return t.info(), nil
}

// List returns every task's state, in start order.
func (m *TaskManager) List() []TaskInfo {
	m.mu.Lock()
	ts := make([]*task, 0, len(m.tasks))
	for i := 1; i <= m.seq; i++ {
		if t, ok := m.tasks[fmt.Sprintf("task-%d", i)]; ok {
			ts = append(ts, t)
		}
	}
	m.mu.Unlock()
	out := make([]TaskInfo, len(ts))
	for i, t := range ts {
		out[i] = t.info()
	}
	return out
}

// Wait waits until the task ends or ctx is done.
func (m *TaskManager) Wait(ctx context.Context, id string) (TaskInfo, error) {
	t, err := m.get(id)
	if err != nil {
		return TaskInfo{}, err
	}
	select {
	case <-t.done:
		return t.info(), nil
	case <-ctx.Done():
		return t.info(), fmt.Errorf("wait for %s: %w", id, ctx.Err())
	}
}

// Kill kills the task and everything it started, then waits for it to be recorded.
func (m *TaskManager) Kill(id string) (TaskInfo, error) {
	t, err := m.get(id)
	if err != nil {
		return TaskInfo{}, err
	}
	t.kill("killed by request")
	<-t.done
	return t.info(), nil
}

// Close kills every running task.
func (m *TaskManager) Close() error {
	m.mu.Lock()
	m.closed = true
	ts := make([]*task, 0, len(m.tasks))
	for _, t := range m.tasks {
		ts = append(ts, t)
	}
	m.mu.Unlock()
	for _, t := range ts {
		t.kill("task manager closed")
		<-t.done
	}
	return nil
}

// killGroup SIGKILLs a task's session leader, its process group and its descendants.
func killGroup(pid int) {
	syscall.Kill(-pid, syscall.SIGKILL)
	killTree(pid, pid)
}
