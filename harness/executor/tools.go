package executor

import (
	"context"
	"encoding/json"
	"time"

	"exo/harness/provider"
)

// toolCtx is what a tool call runs with.
type toolCtx struct {
	x       *Executor
	session string
	branch  string
	callID  string
	ws      string
	// turn holds the options of the turn that made the call (subagents inherit them).
	turn TurnOptions
	// hold is set for an external agent's call: the snapshot after a command is held for the
	// commit of the call's result (see turn.callEvent).
	hold bool
}

// toolOutput is a tool's result before it becomes a tool.completed event.
type toolOutput struct {
	text     string
	isError  bool
	exit     *int
	killed   string
	trunc    bool
	total    int64
	artifact string
	diff     string
	// changed is true when the tool wrote files (the harness snapshots afterwards).
	changed bool
	// waited is how long the call waited for the user's approval (not part of its duration).
	waited time.Duration
}

// tool is one built-in tool: its schema for the model and its implementation.
type tool struct {
	spec provider.Tool
	run  func(ctx context.Context, tc toolCtx, args json.RawMessage) toolOutput
}

// failed returns an error result the model can act on.
func failed(msg string) toolOutput { return toolOutput{text: msg, isError: true} }

// builtinTools lists exo's tools with their JSON schemas. Argument names are fixed so recorded
// sessions and other executors agree.
func builtinTools() []tool {
	return []tool{
		{spec: spec("bash", "Run a shell command in the session's persistent sandbox shell (cd, variables and functions persist). Output is returned with the exit code. Set background to run it as a task and get a handle at once.",
			`{"type":"object","properties":{"command":{"type":"string","description":"the command line"},"timeout_s":{"type":"integer","description":"seconds before the command is killed (default 120)"},"background":{"type":"boolean","description":"run as a background task and return its handle"}},"required":["command"]}`), run: runBash},
		{spec: spec("read_file", "Read a text file of the workspace, with line numbers. offset is the first line (1-based), limit the number of lines.",
			`{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer"},"limit":{"type":"integer"}},"required":["path"]}`), run: runReadFile},
		{spec: spec("write_file", "Create or overwrite a file of the workspace with content.",
			`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`), run: runWriteFile},
		{spec: spec("edit_file", "Replace old_string with new_string in a file. old_string must match exactly once unless replace_all is true.",
			`{"type":"object","properties":{"path":{"type":"string"},"old_string":{"type":"string"},"new_string":{"type":"string"},"replace_all":{"type":"boolean"}},"required":["path","old_string","new_string"]}`), run: runEditFile},
		{spec: spec("glob", "List workspace files matching a glob pattern such as **/*.go, under path (default the workspace root). Files ignored by .gitignore are left out unless include_ignored is true.",
			`{"type":"object","properties":{"pattern":{"type":"string"},"path":{"type":"string"},"include_ignored":{"type":"boolean","description":"also list files that .gitignore, .git/info/exclude or dependency folders (node_modules, target, .venv…) leave out"}},"required":["pattern"]}`), run: runGlob},
		{spec: spec("grep", "Search file contents with a regular expression under path, optionally only in files matching glob. Returns file:line: text. Files ignored by .gitignore are left out unless include_ignored is true.",
			`{"type":"object","properties":{"pattern":{"type":"string"},"path":{"type":"string"},"glob":{"type":"string"},"include_ignored":{"type":"boolean","description":"also search files that .gitignore, .git/info/exclude or dependency folders (node_modules, target, .venv…) leave out"}},"required":["pattern"]}`), run: runGrep},
		{spec: spec("list_dir", "List a workspace directory: names, with / after directories, and sizes.",
			`{"type":"object","properties":{"path":{"type":"string"}}}`), run: runListDir},
		{spec: spec("task_status", "Show a background task's status (running, exit code) by task_id, or all tasks when task_id is empty.",
			`{"type":"object","properties":{"task_id":{"type":"string"}}}`), run: runTaskStatus},
		{spec: spec("task_output", "Read a background task's output so far by task_id (the tail, up to 64 KiB).",
			`{"type":"object","properties":{"task_id":{"type":"string"}},"required":["task_id"]}`), run: runTaskOutput},
		{spec: spec("task_kill", "Kill a background task by task_id.",
			`{"type":"object","properties":{"task_id":{"type":"string"}},"required":["task_id"]}`), run: runTaskKill},
		todoTool(),
	}
}

// spec builds a provider tool description.
func spec(name, desc, schema string) provider.Tool {
	return provider.Tool{Name: name, Description: desc, Schema: json.RawMessage(schema)}
}
