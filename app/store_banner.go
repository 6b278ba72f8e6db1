package app

import "exo/harness/api"

// setStore follows what the daemon says of its shared store: down shows the banner across the
// top of the screen, up drops it. A report older than the one shown (an activity snapshot
// answered before the notice of a change) changes nothing.
func (m *Model) setStore(st *api.StoreState) {
	if st.Since.Before(m.storeAt) {
		return
	}
	m.storeAt = st.Since
	if st.Up {
		m.storeDown = nil
		return
	}
	c := *st
	m.storeDown = &c
}
