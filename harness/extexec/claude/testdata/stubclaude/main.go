// Command stubclaude speaks just enough of Claude Code's stream-json protocol to test how exo
// starts Claude: it answers --version; it answers exo's initialize after --stub-init-delay, never
// with --stub-init=never, or exits at once with --stub-init=exit; and it ends each turn with a
// result that is an error when the prompt came before its answer to initialize, or before an
// initialize registering exo's PreToolUse hook.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "--version" {
		fmt.Println("2.1.330 (Claude Code)")
		return
	}
	var delay time.Duration
	mode := ""
	for _, a := range os.Args[1:] {
		if v, ok := strings.CutPrefix(a, "--stub-init-delay="); ok {
			delay, _ = time.ParseDuration(v)
		}
		if v, ok := strings.CutPrefix(a, "--stub-init="); ok {
			mode = v
		}
	}
	var mu sync.Mutex
	answered, hooked := false, false
	write := func(v any) {
		b, _ := json.Marshal(v)
		mu.Lock()
		os.Stdout.Write(append(b, '\n'))
		mu.Unlock()
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var m struct {
			Type      string `json:"type"`
			RequestID string `json:"request_id"`
			Request   struct {
				Subtype string          `json:"subtype"`
				Hooks   json.RawMessage `json:"hooks"`
			} `json:"request"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch {
		case m.Type == "control_request" && m.Request.Subtype == "initialize":
			switch mode {
			case "exit":
				fmt.Fprintln(os.Stderr, "stubclaude: exiting before initialize")
				os.Exit(3)
			case "never":
				continue
			}
			hasHook := bytes.Contains(m.Request.Hooks, []byte(`"PreToolUse"`)) && bytes.Contains(m.Request.Hooks, []byte("exo_pre_tool_use"))
			go func(id string) {
				time.Sleep(delay)
				mu.Lock()
				answered, hooked = true, hasHook
				mu.Unlock()
				write(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": id, "response": map[string]any{}}})
			}(m.RequestID)
		case m.Type == "user":
			mu.Lock()
			ok, hook := answered, hooked
			mu.Unlock()
			res := map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": "ready with exo's hook"}
			switch {
			case !ok:
				res["subtype"], res["is_error"], res["result"] = "error_during_execution", true, "the prompt came before exo's initialize was answered"
			case !hook:
				res["subtype"], res["is_error"], res["result"] = "error_during_execution", true, "exo's initialize registered no PreToolUse hook"
			}
			write(res)
		}
	}
}
