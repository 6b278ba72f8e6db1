package app

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// editorReadyMsg says the prompt is in a temporary file, ready for the user's editor.
type editorReadyMsg struct {
	path string
	err  error
}

// editorDoneMsg carries the prompt back from the user's editor.
type editorDoneMsg struct {
	text string
	err  error
}

// writeDraftCmd writes the prompt to a temporary file for the editor, ended by a newline as a
// text file is: a line the editor (or a command appending to the file) adds then starts a line
// of its own instead of running on from the prompt's last line. readDraft's trim takes the
// newline off again.
func writeDraftCmd(text string) tea.Cmd {
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return func() tea.Msg {
		dir, err := os.MkdirTemp("", "exo-prompt-")
		if err != nil {
			return editorReadyMsg{err: fmt.Errorf("edit the prompt: %w", err)}
		}
		path := filepath.Join(dir, "PROMPT.md")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			os.RemoveAll(dir)
			return editorReadyMsg{err: fmt.Errorf("edit the prompt: %w", err)}
		}
		return editorReadyMsg{path: path}
	}
}

// editorCommand runs $VISUAL, else $EDITOR, else vi on path; the variable may hold arguments
// ("code --wait"), so a shell splits it, and path is passed as its own argument.
func editorCommand(path string) *exec.Cmd {
	ed := os.Getenv("VISUAL")
	if ed == "" {
		ed = os.Getenv("EDITOR")
	}
	if ed == "" {
		ed = "vi"
	}
	return exec.Command("sh", "-c", ed+` "$1"`, "exo-editor", path)
}

// readDraft reads the edited prompt back and removes the temporary file (the editor has exited).
func readDraft(path string, runErr error) tea.Msg {
	defer os.RemoveAll(filepath.Dir(path))
	if runErr != nil {
		return editorDoneMsg{err: fmt.Errorf("the editor failed (%v); the prompt is unchanged", runErr)}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return editorDoneMsg{err: fmt.Errorf("read the edited prompt: %w", err)}
	}
	return editorDoneMsg{text: string(b)}
}

// onEditor runs the editor on the written draft (the terminal is handed over until it exits),
// or puts the edited text back in the input.
func (m *Model) onEditor(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case editorReadyMsg:
		if msg.err != nil {
			return m.say(msg.err.Error(), true)
		}
		path := msg.path
		return tea.ExecProcess(editorCommand(path), func(err error) tea.Msg { return readDraft(path, err) })
	case editorDoneMsg:
		if msg.err != nil {
			return m.say(msg.err.Error(), true)
		}
		m.input.SetEdited(msg.text)
		m.setFocus(focusInput)
	}
	return nil
}
