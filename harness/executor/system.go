package executor

import (
	"fmt"
	"strings"

	"exo/harness"
)

// systemPrompt builds the stable system prompt of a session: the agent's role, the sandbox it
// works in, and the instruction files the branch's log holds (the user's and the project's).
func (x *Executor) systemPrompt(s *harness.Session, instructions []harness.InstructionFile) string {
	var b strings.Builder
	fmt.Fprintf(&b, `You are a coding agent running inside exo, a terminal agent harness. You work in the workspace %s
through tools: bash runs commands in a persistent sandboxed shell (its state persists between calls), and
read_file, write_file, edit_file, glob, grep and list_dir work on the workspace's files. Paths are
relative to the workspace; you cannot reach files outside it. Long commands can run in the background
(bash with background: true) while you keep working. For work of several steps, keep your plan with
todo_write: the user sees it as a checklist.

Work step by step: look before you change, make focused edits, run the code or tests to check your
work, and finish with a short answer saying what you did and what remains. Secrets are sealed by the
harness: never try to read API keys or exo's own files; such attempts are refused and shown to the user.
`, s.Workspace)
	if s.Settings["network"] != "on" {
		b.WriteString("The sandbox has no network access.\n")
	}
	b.WriteString(instructionsPrompt(instructions))
	for _, src := range x.opts.ToolSources {
		if sp, ok := src.(SystemPrompter); ok {
			if text := sp.SystemPrompt(s); text != "" {
				b.WriteString("\n" + text + "\n")
			}
		}
	}
	if x.opts.SystemExtra != nil {
		if extra := x.opts.SystemExtra(s.ID); extra != "" {
			b.WriteString("\n" + extra + "\n")
		}
	}
	return b.String()
}
