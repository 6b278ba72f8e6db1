package views

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestConfirmOneFile(t *testing.T) {
	c := NewCommon(testThemes["dark"]())
	d := NewConfirm(c, RewindPlan{Seq: 9, Events: 1, Files: []string{"main.go"}})
	d.SetSize(80, 20)
	v := ansi.Strip(d.View())
	if !strings.Contains(v, "1 file returns to its state at 9") || !strings.Contains(v, "1 event leaves the live") {
		t.Fatalf("the rewind dialog:\n%s", v)
	}
	if strings.Contains(v, "1 files") || strings.Contains(v, "1 events") {
		t.Fatalf("a count of one in the plural:\n%s", v)
	}
}
