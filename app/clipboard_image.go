package app

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"exo/harness/api"
)

// clipboardTool is a program that hands over the clipboard's image: which one is found at run
// time (Wayland's wl-paste, X11's xclip, macOS's pngpaste), as Claude Code and Crush look.
type clipboardTool struct {
	name string
	// types lists the clipboard's types (nil: the tool cannot; read is tried).
	types []string
	// read writes the clipboard's PNG to stdout.
	read []string
}

// clipboardTools returns the tools that may work in this session, in order.
func clipboardTools(getenv func(string) string, look func(string) (string, error)) []clipboardTool {
	var out []clipboardTool
	have := func(p string) bool { _, err := look(p); return err == nil }
	if getenv("WAYLAND_DISPLAY") != "" && have("wl-paste") {
		out = append(out, clipboardTool{"wl-paste", []string{"wl-paste", "--list-types"}, []string{"wl-paste", "--no-newline", "--type", "image/png"}})
	}
	if getenv("DISPLAY") != "" && have("xclip") {
		out = append(out, clipboardTool{"xclip", []string{"xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"}, []string{"xclip", "-selection", "clipboard", "-t", "image/png", "-o"}})
	}
	if have("pngpaste") {
		out = append(out, clipboardTool{"pngpaste", nil, []string{"pngpaste", "-"}})
	}
	return out
}

// errNoClipboardImage means the clipboard holds no image (or no tool could read it).
var errNoClipboardImage = errors.New("no image in the clipboard")

// readClipboardImage reads the clipboard's image with the first tool that has one, at most
// MaxImageBytes+1 bytes (the daemon says when it is too big).
func readClipboardImage(ctx context.Context, tools []clipboardTool) ([]byte, error) {
	if len(tools) == 0 {
		return nil, errors.New("no clipboard tool found (install wl-clipboard on Wayland, xclip on X11, pngpaste on macOS), or save the image in the workspace and mention it with @")
	}
	for _, t := range tools {
		if t.types != nil {
			out, err := exec.CommandContext(ctx, t.types[0], t.types[1:]...).Output()
			if err != nil || !strings.Contains(string(out), "image/png") {
				continue
			}
		}
		cmd := exec.CommandContext(ctx, t.read[0], t.read[1:]...)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			continue
		}
		if err := cmd.Start(); err != nil {
			continue
		}
		b, _ := io.ReadAll(io.LimitReader(stdout, api.MaxImageBytes+1))
		_ = cmd.Process.Kill() // a tool still writing past the limit is not waited for
		_ = cmd.Wait()
		if len(b) > 0 && bytes.HasPrefix(b, []byte("\x89PNG")) {
			return b, nil
		}
	}
	return nil, errNoClipboardImage
}

// pastedImageMsg reports an image pasted from the clipboard, stored by the daemon.
type pastedImageMsg struct {
	mention string
	err     error
}

// pasteImageCmd reads the clipboard's image and has the daemon store it.
func (m *Model) pasteImageCmd() tea.Cmd {
	c, ok := m.c.(api.ImagePaster)
	session := m.current()
	if !ok || session == "" {
		return m.say("pasting images needs exo's daemon", true)
	}
	tools := clipboardTools(os.Getenv, exec.LookPath)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		b, err := readClipboardImage(ctx, tools)
		if err != nil {
			return pastedImageMsg{err: err}
		}
		p, err := c.PasteImage(ctx, api.PasteImageRequest{Session: session, Data: b})
		if err != nil {
			return pastedImageMsg{err: err}
		}
		return pastedImageMsg{mention: "@" + p.Mention + " "}
	}
}

// onPastedImage puts a pasted image's mention in the prompt, or says why there is none.
func (m *Model) onPastedImage(msg pastedImageMsg) tea.Cmd {
	if msg.err != nil {
		return m.say("paste image: "+msg.err.Error(), true)
	}
	if m.focus != focusInput {
		m.setFocus(focusInput)
	}
	_, cmd := m.input.Update(tea.PasteMsg{Content: msg.mention})
	return tea.Batch(cmd, m.say("pasted the clipboard's image: it is attached when the prompt is sent", false))
}
