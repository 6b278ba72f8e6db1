package sandbox

// OutputFilter rewrites a command's output text before anything keeps it: the inline head and
// tail, the artifact, a task's output. The harness passes a secret redactor, so that the cut
// between head and tail, and every later cut, falls in text that is already redacted and can
// never leave part of a secret behind. Next may hold bytes back until the next chunk; Flush
// returns them when the output ends. A filter serves one command and is not shared.
type OutputFilter interface {
	// Next takes a chunk of output and returns the filtered text now settled.
	Next(chunk []byte) []byte
	// Flush returns whatever is held back, filtered.
	Flush() []byte
}

// filtered is a writer that passes text through an optional filter to w.
type filtered struct {
	f OutputFilter
	w interface{ Write([]byte) (int, error) }
}

// Write filters p and writes what is settled.
func (x filtered) Write(p []byte) (int, error) {
	if x.f == nil {
		return x.w.Write(p)
	}
	if out := x.f.Next(p); len(out) > 0 {
		x.w.Write(out)
	}
	return len(p), nil
}

// flush writes what the filter held back.
func (x filtered) flush() {
	if x.f != nil {
		if out := x.f.Flush(); len(out) > 0 {
			x.w.Write(out)
		}
	}
}
