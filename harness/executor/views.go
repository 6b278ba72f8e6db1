package executor

import "sync"

// maxViews is how many branches' prompt views the executor keeps. A view holds its branch's
// whole conversation as model messages, kept up to date event by event so that a turn's next
// prompt costs only what was added; a daemon that kept every branch it ever ran (every session,
// fork and rewind of its life) grew by the size of every conversation it ever ran. Past
// maxViews the view used least recently is dropped; a turn on
// its branch later rebuilds it from the log (a view is only a projection of the branch's
// events, so the rebuilt one is the same).
const maxViews = 64

// maxViewTokens bounds the views kept besides the one in use by their size (their token
// estimate, about 512 KiB of text): 64 views of long answers held a daemon's heap at tens of MiB
// (each rig session of a 160k-character answer left 290 KB).
const maxViewTokens = 1 << 17

// viewLock serialises bringing one branch's view up to date; users counts the callers holding or
// waiting for it, and the lock is forgotten when none is (x.viewLocks held every branch's).
type viewLock struct {
	sync.Mutex
	users int
}

// touchView marks branch's view as used now and drops the least recently used views past
// maxViews or maxViewTokens; x.mu is held. A turn holding a dropped view keeps using it (it
// holds the branch's view lock); the next one rebuilds it.
func (x *Executor) touchView(branch string) {
	if x.viewUsed == nil {
		x.viewUsed = map[string]uint64{}
	}
	x.viewTick++
	x.viewUsed[branch] = x.viewTick
	for len(x.views) > maxViews || x.viewTokens-x.viewSize[branch] > maxViewTokens {
		oldest, at := "", uint64(0)
		for b, t := range x.viewUsed {
			if b != branch && (oldest == "" || t < at) {
				oldest, at = b, t
			}
		}
		if oldest == "" {
			return
		}
		x.dropView(oldest)
	}
}

// dropView forgets a branch's view; x.mu is held.
func (x *Executor) dropView(branch string) {
	x.viewTokens -= x.viewSize[branch]
	delete(x.views, branch)
	delete(x.viewUsed, branch)
	delete(x.viewSize, branch)
}

// sizeView records the size of branch's view v after it was brought up to date, and drops
// views past the bounds; the caller holds the branch's view lock, not x.mu.
func (x *Executor) sizeView(branch string, v *View) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.views[branch] != v {
		return // dropped meanwhile
	}
	if x.viewSize == nil {
		x.viewSize = map[string]int{}
	}
	x.viewTokens += v.Tokens - x.viewSize[branch]
	x.viewSize[branch] = v.Tokens
	x.touchView(branch)
}
