package sandbox

import (
	"io"
	"sync"

	"exo/themes/termsafe"
)

// runState receives a command's output from the PTY reader until its marker arrives.
type runState struct {
	mu      sync.Mutex
	scan    markerScanner
	accept  map[string]bool
	model   *termsafe.Sanitizer
	display *termsafe.Sanitizer
	cap     *capture
	keep    filtered // the model text's way into cap, through the command's filter
	stream  io.Writer
	done    chan int
	ended   bool
}

// newRunState prepares to collect output; cap and stream may be nil.
func newRunState(cap *capture, stream io.Writer, nonces ...string) *runState {
	st := &runState{accept: map[string]bool{}, cap: cap, stream: stream, done: make(chan int, 1)}
	if cap != nil {
		st.model = newSanitizer(false)
		st.keep = filtered{w: cap}
	}
	if stream != nil {
		st.display = newSanitizer(true)
	}
	for _, n := range nonces {
		st.accept[n] = true
	}
	return st
}

// expect adds a nonce whose marker also ends the command (a sync after an interrupt).
func (st *runState) expect(nonce string) {
	st.mu.Lock()
	st.accept[nonce] = true
	st.mu.Unlock()
}

// feed processes one chunk read from the PTY.
func (st *runState) feed(p []byte) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.scan.scan(p, st.output, st.marker)
}

// output handles command output bytes.
func (st *runState) output(p []byte) {
	if st.ended {
		return
	}
	if st.cap != nil {
		st.keep.Write(st.model.Feed(p))
	}
	if st.stream != nil {
		if out := st.display.Feed(p); len(out) > 0 {
			st.stream.Write(out)
		}
	}
}

// marker ends the command when the marker is one it waits for.
func (st *runState) marker(m marker) {
	if st.ended || !st.accept[m.nonce] {
		return
	}
	st.ended = true
	st.done <- m.code
}

// finish returns the captured text; call it after the command ended.
func (st *runState) finish(r *Result) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.ended = true
	if st.cap == nil {
		return nil
	}
	st.keep.flush()
	text, ref, err := st.cap.finish()
	r.Output, r.ArtifactRef = text, ref
	r.TotalBytes, r.Truncated = st.cap.total, st.cap.overflow
	return err
}
