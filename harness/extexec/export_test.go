package extexec

// SetMaxQueuedBytes lowers the bound on a turn's unread queue for a test; the returned func
// puts it back.
func SetMaxQueuedBytes(n int) (restore func()) {
	old := maxQueuedBytes
	maxQueuedBytes = n
	return func() { maxQueuedBytes = old }
}
