package views

// SubmitMsg carries a prompt the user sent.
type SubmitMsg struct {
	Text string // Text is the prompt with pasted chips expanded.
	// Steer asks to send it into the running turn at its next step (ctrl+s), not after it.
	Steer bool
}

// TakeBackQueuedMsg asks the app to take back the newest queued prompt into the input (↑ on an
// empty prompt while prompts are queued).
type TakeBackQueuedMsg struct{}

// SlashCommandMsg carries a slash command the user sent, e.g. /model gpt-5.
type SlashCommandMsg struct {
	Name string // Name is the command without the slash, lower case.
	Args string // Args is the rest of the line, trimmed.
}

// EditPromptMsg asks the app to open the prompt in the user's editor ($VISUAL or $EDITOR).
type EditPromptMsg struct {
	Text string // Text is the prompt with pasted chips expanded.
}

// ShellCommandMsg carries a line that started with "!": a shell command to
// run in the session's sandbox.
type ShellCommandMsg struct {
	Command string // Command is the line without the "!".
}
