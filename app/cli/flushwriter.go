package cli

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// flushWriter buffers streamed output and flushes it every interval, so a 160k-delta answer costs
// a few hundred writes instead of one system call per token, while text still appears live.
type flushWriter struct {
	mu   sync.Mutex
	w    *bufio.Writer
	stop chan struct{}
	done chan struct{}
}

// newFlushWriter starts flushing w every interval until Close.
func newFlushWriter(w io.Writer, interval time.Duration) *flushWriter {
	f := &flushWriter{w: bufio.NewWriterSize(w, 64<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(f.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				f.Flush()
			case <-f.stop:
				return
			}
		}
	}()
	return f
}

// Write buffers p.
func (f *flushWriter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.w.Write(p)
}

// Flush writes out what is buffered.
func (f *flushWriter) Flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.w.Flush()
}

// Close stops the ticker and flushes.
func (f *flushWriter) Close() {
	close(f.stop)
	<-f.done
	f.Flush()
}
