package app

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// approvalArgs is what the approval dialog shows of a call's arguments: a shell command as the
// command itself (its JSON escapes quotes and newlines, which is not what a person should have to
// read before approving it), with any other argument on a line of its own; other tools' JSON as it is.
func approvalArgs(tool string, raw json.RawMessage) string {
	var args map[string]any
	if tool != "bash" || json.Unmarshal(raw, &args) != nil {
		return string(raw)
	}
	cmd, ok := args["command"].(string)
	if !ok {
		return string(raw)
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
		v, _ := json.Marshal(args[k])
		lines = append(lines, fmt.Sprintf("%s: %s", k, v))
	}
	return strings.Join(lines, "\n")
}
