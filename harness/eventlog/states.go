package eventlog

import "exo/harness/api"

// maxStates is how many branches' Session projections the log keeps in memory. A projection
// missing is loaded from the branch's newest checkpoint and the events after it (at most
// CheckpointEvery); a daemon kept one for every branch it ever read or appended to, each with
// its items' text, for its life.
const maxStates = 32

// keepState keeps st as branch's projection and drops the least recently used ones past
// maxStates; l.mu is held.
func (l *Log) keepState(branch string, st *api.SessionState) {
	l.states[branch] = st
	l.touchState(branch)
	for len(l.states) > maxStates {
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
	delete(l.states, branch)
	delete(l.statesUsed, branch)
}
