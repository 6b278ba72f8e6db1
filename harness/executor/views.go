package executor

// maxViews is how many branches' prompt views the executor keeps. A view holds its branch's
// whole conversation as model messages, kept up to date event by event so that a turn's next
// prompt costs only what was added; a daemon that kept every branch it ever ran (every session,
// fork and rewind of its life) grew by the size of every conversation it ever ran. Past
// maxViews the view used least recently is dropped; a turn on
// its branch later rebuilds it from the log (a view is only a projection of the branch's
// events, so the rebuilt one is the same).
const maxViews = 64

// touchView marks branch's view as used now and drops the least recently used views past
// maxViews; x.mu is held. A turn holding a dropped view keeps using it (it holds the branch's
// view lock); the next one rebuilds it.
func (x *Executor) touchView(branch string) {
	if x.viewUsed == nil {
		x.viewUsed = map[string]uint64{}
	}
	x.viewTick++
	x.viewUsed[branch] = x.viewTick
	for len(x.views) > maxViews {
		oldest, at := "", uint64(0)
		for b, t := range x.viewUsed {
			if b != branch && (oldest == "" || t < at) {
				oldest, at = b, t
			}
		}
		if oldest == "" {
			return
		}
		delete(x.views, oldest)
		delete(x.viewUsed, oldest)
	}
}
