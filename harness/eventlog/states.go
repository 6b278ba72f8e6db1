package eventlog

import (
	"unsafe"

	"exo/harness/api"
)

// maxStates is how many branches' Session projections the log keeps in memory. A projection
// missing is loaded from the branch's newest checkpoint and the events after it (at most
// CheckpointEvery); a daemon kept one for every branch it ever read or appended to, each with
// its items' text, for its life.
const maxStates = 32

// maxStateBytes bounds the projections kept besides the one used last by what they hold (see
// stateBytes): a projection keeps up to 256 items of up to 8 KiB of text each, so 32 of long
// conversations could hold tens of MiB.
const maxStateBytes = 1 << 20

// itemOverhead is an item's own size in a projection, besides the text it points to.
const itemOverhead = int(unsafe.Sizeof(api.Item{}))

// stateBytes estimates what a projection holds in memory: its items and the text they point
// to, and the lists that grow with a turn (approvals asked, prompts queued).
func stateBytes(st *api.SessionState) int {
	n := int(unsafe.Sizeof(*st)) + cap(st.Items)*itemOverhead
	for i := range st.Items {
		it := &st.Items[i]
		n += len(it.Text) + len(it.Tool) + len(it.CallID) + len(it.Args) + len(it.Status) + len(it.Output) +
			len(it.Artifact) + len(it.Diff) + len(it.Cut)
		for _, a := range it.Attached {
			n += len(a) + 16
		}
	}
	for _, a := range st.Asked {
		n += len(a.CallID) + len(a.Tool) + len(a.Args) + len(a.Summary) + 64
	}
	for _, q := range st.Queued {
		n += len(q.ID) + len(q.Text) + len(q.Source) + 64
	}
	for k := range st.OpenCalls {
		n += len(k) + 32
	}
	for _, s := range st.Instructions {
		n += len(s) + 16
	}
	return n
}

// keepState keeps st as branch's projection; l.mu is held.
func (l *Log) keepState(branch string, st *api.SessionState) {
	l.states[branch] = st
	l.sizeState(branch)
}

// sizeState records what branch's projection holds after it changed, marks it used now and
// drops the least recently used ones past maxStates or maxStateBytes; l.mu is held.
func (l *Log) sizeState(branch string) {
	if l.statesSize == nil {
		l.statesSize = map[string]int{}
	}
	n := stateBytes(l.states[branch])
	l.statesBytes += n - l.statesSize[branch]
	l.statesSize[branch] = n
	l.touchState(branch)
	for len(l.states) > maxStates || l.statesBytes-l.statesSize[branch] > maxStateBytes {
		oldest, at := "", uint64(0)
		for b, t := range l.statesUsed {
			if b != branch && (oldest == "" || t < at) {
				oldest, at = b, t
			}
		}
		if oldest == "" {
			return
		}
		l.dropState(oldest)
	}
}

// touchState marks branch's projection as used now; l.mu is held.
func (l *Log) touchState(branch string) {
	if l.statesUsed == nil {
		l.statesUsed = map[string]uint64{}
	}
	l.statesTick++
	l.statesUsed[branch] = l.statesTick
}

// dropState forgets branch's projection; l.mu is held.
func (l *Log) dropState(branch string) {
	l.statesBytes -= l.statesSize[branch]
	delete(l.states, branch)
	delete(l.statesUsed, branch)
	delete(l.statesSize, branch)
}
