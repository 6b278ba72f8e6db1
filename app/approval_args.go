package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"exo/views"
)

// approvalArgs is what the approval dialog shows of a call's arguments: a shell command as the
// command itself (its JSON escapes quotes and newlines, which is not what a person should have to
// read before approving it), with any other argument on a line of its own; other tools' JSON as it is.
func approvalArgs(tool string, raw json.RawMessage) string {
	var args map[string]any
	if tool != "bash" || json.Unmarshal(raw, &args) != nil {
		return string(views.UnescapeHTML(raw))
	}
	cmd, ok := args["command"].(string)
	if !ok {
		return string(views.UnescapeHTML(raw))
	}
	keys := make([]string, 0, len(args))
	for k := range args {
		if k != "command" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	lines := []string{cmd}
	for _, k := range keys {
		var v bytes.Buffer
		_ = views.WriteJSON(&v, args[k], "")
		lines = append(lines, fmt.Sprintf("%s: %s", k, bytes.TrimSuffix(v.Bytes(), []byte("\n"))))
	}
	return strings.Join(lines, "\n")
}
