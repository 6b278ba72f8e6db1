package tea

// Tests of exo's patch (see PATCH.md): the renderer's frame clock runs only
// while there is something to draw. The clock is a fake the test ticks by
// hand, and the renderer reports each step, so nothing here depends on time.

import (
	"bytes"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a frameClock ticked by the test.
type fakeClock struct {
	c chan time.Time

	mu      sync.Mutex
	running bool
	resets  int
}

func newFakeClock() *fakeClock { return &fakeClock{c: make(chan time.Time), running: true} }

func (f *fakeClock) C() <-chan time.Time { return f.c }

func (f *fakeClock) Reset(time.Duration) {
	f.mu.Lock()
	f.running, f.resets = true, f.resets+1
	f.mu.Unlock()
}

func (f *fakeClock) Stop() {
	f.mu.Lock()
	f.running = false
	f.mu.Unlock()
}

func (f *fakeClock) state() (running bool, resets int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.running, f.resets
}

// lockedBuffer is the program's output, read while the program writes it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// setViewMsg sets the clock model's view; quitWithMsg sets it and quits.
type (
	setViewMsg  string
	quitWithMsg string
)

// clockModel shows a string and counts the messages Run sends it at start.
type clockModel struct {
	view    string
	started atomic.Int32
}

func (m *clockModel) Init() Cmd { return nil }

func (m *clockModel) Update(msg Msg) (Model, Cmd) {
	switch msg := msg.(type) {
	case WindowSizeMsg, ColorProfileMsg, EnvMsg:
		m.started.Add(1)
	case setViewMsg:
		m.view = string(msg)
	case quitWithMsg:
		m.view = string(msg)
		return m, Quit
	}
	return m, nil
}

func (m *clockModel) View() View { return NewView(m.view) }

// clockRig runs a program on a fake clock and follows its renderer's steps.
type clockRig struct {
	t       *testing.T
	p       *Program
	m       *clockModel
	clocks  atomic.Pointer[fakeClock] // the running renderer's
	out     *lockedBuffer
	steps   chan rigStep
	ticking bool
	shown   string // the output when the last step taken was reported
	ticks   int
	done    chan error
}

func startClockRig(t *testing.T) *clockRig {
	t.Helper()
	r := &clockRig{
		t:       t,
		m:       &clockModel{view: "one"},
		out:     &lockedBuffer{},
		steps:   make(chan rigStep, 1024),
		ticking: true,
		done:    make(chan error, 1),
	}
	r.p = NewProgram(r.m, WithInput(nil), WithOutput(r.out), WithWindowSize(40, 10), WithoutSignals())
	// Each start of the renderer (Run, RestoreTerminal) has its own clock,
	// as each has its own time.Ticker.
	started := make(chan struct{})
	var once sync.Once
	r.p.newFrameClock = func(time.Duration) frameClock {
		c := newFakeClock()
		r.clocks.Store(c)
		once.Do(func() { close(started) })
		return c
	}
	r.p.rendererStep = func(s string) { r.steps <- rigStep{s, r.out.String()} }
	go func() {
		_, err := r.p.Run()
		r.done <- err
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the renderer did not start in 10 s")
	}
	t.Cleanup(func() {
		r.p.Kill()
		<-r.done
	})
	return r
}

// rigStep is a step of the renderer, with the output it left.
type rigStep struct{ step, output string }

// step waits for the renderer's next step and returns it.
func (r *clockRig) step() string {
	r.t.Helper()
	select {
	case st := <-r.steps:
		s := st.step
		r.shown = st.output
		switch s {
		case "wake":
			r.ticking = true
		case "idle":
			r.ticking = false
		}
		return s
	case <-time.After(10 * time.Second):
		r.t.Fatal("the renderer took no step in 10 s")
		return ""
	}
}

// tick delivers one tick of the clock and returns the step it caused (a wake
// handled first is followed through).
func (r *clockRig) tick() string {
	r.t.Helper()
	if running, _ := r.clocks.Load().state(); !running || !r.ticking {
		r.t.Fatal("tick on a stopped clock")
	}
	if r.ticks++; r.ticks > 1000 {
		r.t.Fatal("1000 ticks and the clock has not stopped")
	}
	select {
	case r.clocks.Load().c <- time.Now():
	case <-time.After(10 * time.Second):
		r.t.Fatal("the renderer took no tick in 10 s")
	}
	for {
		if s := r.step(); s != "wake" {
			return s
		}
	}
}

// settle ticks until the program has drawn all the messages Run sends at
// start and the clock has stopped.
func (r *clockRig) settle() {
	r.t.Helper()
	for r.m.started.Load() < 3 {
		if r.ticking {
			r.tick()
			continue
		}
		r.step() // a message Run sent at start wakes the renderer
	}
	// The event loop renders each message before it takes the next one.
	r.p.Send(setViewMsg("settled"))
	r.waitOutput("settled")
	for r.ticking {
		r.tick()
	}
}

// waitOutput follows the renderer's steps until one leaves want in the
// output. (The output is read as each step is reported: read later, it could
// hold what a step not yet taken wrote.)
func (r *clockRig) waitOutput(want string) {
	r.t.Helper()
	for {
		if r.ticking {
			r.tick()
		} else {
			r.step()
		}
		if strings.Contains(r.shown, want) {
			return
		}
	}
}

func TestFrameClockStopsWhenIdleAndRestartsOnANewView(t *testing.T) {
	t.Parallel()
	r := startClockRig(t)
	r.waitOutput("one")
	r.settle()
	if running, _ := r.clocks.Load().state(); running {
		t.Fatal("the renderer went idle but its clock still runs")
	}

	// Idle: nothing is drawn, and the renderer takes no step of its own.
	before := r.out.String()
	select {
	case s := <-r.steps:
		t.Fatalf("the idle renderer took a step: %s", s.step)
	default:
	}

	// A new view is drawn at once and starts the clock; the first tick that
	// finds nothing new stops it again, writing nothing.
	_, resets := r.clocks.Load().state()
	r.p.Send(setViewMsg("two"))
	if s := r.step(); s != "wake" {
		t.Fatalf("a new view: step %q, want wake", s)
	}
	if got := r.shown; got == before || !strings.Contains(got, "two") {
		t.Fatalf("the new view was not drawn on waking: %q", got)
	}
	if running, n := r.clocks.Load().state(); !running || n != resets+1 {
		t.Fatalf("after a wake the clock runs %v after %d resets, want running after %d", running, n, resets+1)
	}
	drawn := r.out.String()
	if s := r.tick(); s != "idle" {
		t.Fatalf("a tick with nothing new: step %q, want idle", s)
	}
	if got := r.out.String(); got != drawn {
		t.Fatalf("a tick with nothing new wrote %q", strings.TrimPrefix(got, drawn))
	}

	// Messages while the clock runs are drawn by its next tick.
	r.p.Send(setViewMsg("three"))
	if s := r.step(); s != "wake" {
		t.Fatalf("step %q, want wake", s)
	}
	r.p.Send(setViewMsg("four"))
	r.waitOutput("four")
	for r.ticking {
		r.tick()
	}
}

func TestFrameClockWakesForOutputAboveAndQueuedSequences(t *testing.T) {
	t.Parallel()
	r := startClockRig(t)
	r.waitOutput("one")
	r.settle()

	// Println goes through the event loop; SetClipboard queues a sequence
	// with execute. Both must reach the terminal without another view.
	r.p.Println("printed above")
	r.waitOutput("printed above")
	for r.ticking {
		r.tick()
	}
	r.p.Send(SetClipboard("copied")())
	r.waitOutput("Y29waWVk") // base64 of "copied" in OSC 52
}

func TestFrameClockRepaintsAfterRestoreTerminal(t *testing.T) {
	t.Parallel()
	r := startClockRig(t)
	r.waitOutput("one")
	r.settle()

	if err := r.p.ReleaseTerminal(); err != nil {
		t.Fatal(err)
	}
	r.p.Send(setViewMsg("while released"))
	if err := r.p.RestoreTerminal(); err != nil {
		t.Fatal(err)
	}
	// The restarted renderer's clock runs: its first tick draws the view.
	r.ticking = true
	r.waitOutput("while released")
}

func TestFrameClockFinalFrameAtQuit(t *testing.T) {
	t.Parallel()
	r := startClockRig(t)
	r.waitOutput("one")
	r.settle()
	r.p.Send(quitWithMsg("the last frame"))
	select {
	case err := <-r.done:
		r.done <- err // for the cleanup
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the program did not quit in 10 s")
	}
	if !strings.Contains(r.out.String(), "the last frame") {
		t.Fatalf("the final frame was not drawn: %q", r.out.String())
	}
}

func TestFrameClockWakesForEveryInput(t *testing.T) {
	t.Parallel()
	r := startClockRig(t)
	r.waitOutput("one")
	r.settle()

	// Each input reaches the event loop, which renders after it: the idle
	// renderer wakes and draws at once, and the next empty tick stops it.
	for _, msg := range []Msg{
		FocusMsg{},
		BlurMsg{},
		PasteMsg{Content: "pasted"},
		MouseClickMsg{X: 1, Y: 1, Button: MouseLeft},
		KeyPressMsg{Code: 'x', Text: "x"},
	} {
		r.p.Send(msg)
		if s := r.step(); s != "wake" {
			t.Fatalf("%T: step %q, want wake", msg, s)
		}
		if s := r.tick(); s != "idle" {
			t.Fatalf("%T: a tick with nothing new: step %q, want idle", msg, s)
		}
	}

	// A resize redraws the whole frame at the new size.
	before := r.shown
	r.p.Send(WindowSizeMsg{Width: 30, Height: 8})
	if s := r.step(); s != "wake" {
		t.Fatalf("resize: step %q, want wake", s)
	}
	if drawn := strings.TrimPrefix(r.shown, before); !strings.Contains(drawn, "settled") {
		t.Fatalf("the resize did not redraw the view: %q", drawn)
	}
}
