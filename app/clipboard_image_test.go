package app

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestPasteClipboardImage presses alt+v with a real clipboard tool on PATH (a wl-paste script
// that lists image/png and prints a PNG): the daemon stores the image and the prompt gets its
// @clipboard: mention. Without a tool, or with a clipboard holding text, the status says so.
func TestPasteClipboardImage(t *testing.T) {
	bin := t.TempDir()
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, 5, 4)))
	pic := filepath.Join(bin, "pic.png")
	os.WriteFile(pic, b.Bytes(), 0o644)
	script := "#!/bin/sh\nif [ \"$1\" = --list-types ]; then printf 'text/plain\\n%s\\n' \"$TYPES\"; exit 0; fi\ncat " + pic + "\n"
	os.WriteFile(filepath.Join(bin, "wl-paste"), []byte(script), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("WAYLAND_DISPLAY", "wayland-test")
	t.Setenv("DISPLAY", "")
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	press := func() {
		_, cmd := m.Update(tea.KeyPressMsg{Code: 'v', Mod: tea.ModAlt})
		if cmd != nil {
			m.Update(cmd())
		}
	}
	t.Setenv("TYPES", "image/png")
	press()
	if v := m.input.Value(); !strings.HasPrefix(v, "@clipboard:") || !strings.HasSuffix(v, ".png ") {
		t.Fatalf("prompt %q, status %q", v, m.info.Message)
	}
	m.input.SetValue("")
	t.Setenv("TYPES", "")
	press()
	if m.input.Value() != "" || !strings.Contains(m.info.Message, "no image in the clipboard") {
		t.Fatalf("a clipboard without an image: prompt %q, status %q", m.input.Value(), m.info.Message)
	}
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv("PATH", t.TempDir())
	press()
	if !strings.Contains(m.info.Message, "no clipboard tool found") {
		t.Fatalf("no tool: status %q", m.info.Message)
	}
}
