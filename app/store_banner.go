package app

import (
	tea "charm.land/bubbletea/v2"

	"exo/harness/api"
)

// setStore follows what the daemon says of its shared store: down shows the banner across the
// top of the screen, up drops it. A report older than the one shown (an activity snapshot
// answered before the notice of a change) changes nothing. It reports whether the store came
// back after the app saw it down.
func (m *Model) setStore(st *api.StoreState) (back bool) {
	if st.Since.Before(m.storeAt) {
		return false
	}
	m.storeAt = st.Since
	if st.Up {
		back = m.storeDown != nil
		m.storeDown = nil
		return back
	}
	c := *st
	m.storeDown = &c
	return false
}

// storeBack reads again what the outage kept from the app: the session shown, or, when the app
// could not even attach while the store was down (it then shows no session), the attach itself;
// and the siblings. Without it an app started during an outage stayed empty once it ended.
func (m *Model) storeBack() tea.Cmd {
	var load tea.Cmd
	switch {
	case m.loading != 0: // a load is on its way and reads the store as it is now
	case m.session == nil:
		load = m.attachCmd()
	default:
		load = m.refreshCmd()
	}
	return tea.Batch(load, m.siblingsCmd())
}
