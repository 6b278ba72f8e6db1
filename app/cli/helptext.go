package cli

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// HelpTexts returns what `exo CMD --help` prints for every command of the tree (hidden ones
// included), keyed by the command's path below exo ("" for exo itself, "model register"). The
// thin exo answers --help from a copy of it generated at build time (app/thin/help), without
// starting the full exo; a test keeps the copy equal to this.
func HelpTexts() (map[string]string, error) {
	out := map[string]string{}
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		path := strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), "exo"), " ")
		text, err := helpOf(path)
		if err != nil {
			return err
		}
		out[path] = text
		for _, sub := range c.Commands() {
			if err := walk(sub); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk(newRoot(&env{}))
}

// helpOf runs `exo PATH --help` and returns what it prints.
func helpOf(path string) (string, error) {
	args := append(strings.Fields(path), "--help")
	var stdout, stderr bytes.Buffer
	if code := Execute(args, strings.NewReader(""), &stdout, &stderr, Options{}); code != 0 || stderr.Len() > 0 {
		return "", fmt.Errorf("exo %s --help: exit %d: %s", path, code, stderr.String())
	}
	return stdout.String(), nil
}
