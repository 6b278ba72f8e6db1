package extexec

// showReasoning sets what the reasoning of the turn's calls on the conversation is shown to, as
// the endpoint decodes it, until the turn ends.
func (l *Log) showReasoning(f func(string)) {
	l.mu.Lock()
	l.thinking = f
	l.mu.Unlock()
}
