package executor

// The arguments of exo's built-in tools: each runner decodes its call into one of these, and the
// schema the model is offered is derived from the same struct (see schema.go), so the two cannot
// drift. A field without omitempty is required; its jsonschema tag is its description. Argument
// names are fixed so recorded sessions and other executors agree.

// bashArgs are bash's arguments.
type bashArgs struct {
	Command    string `json:"command" jsonschema:"the command line"`
	TimeoutS   int    `json:"timeout_s,omitempty" jsonschema:"seconds before the command is killed (default 120)"`
	Background bool   `json:"background,omitempty" jsonschema:"run as a background task and return its handle"`
}

// readFileArgs are read_file's arguments.
type readFileArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

// writeFileArgs are write_file's arguments.
type writeFileArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// editFileArgs are edit_file's arguments.
type editFileArgs struct {
	Path       string `json:"path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all,omitempty"`
}

// globArgs are glob's arguments.
type globArgs struct {
	Pattern        string `json:"pattern"`
	Path           string `json:"path,omitempty"`
	IncludeIgnored bool   `json:"include_ignored,omitempty" jsonschema:"also list files that .gitignore, .git/info/exclude or dependency folders (node_modules, target, .venv…) leave out"`
}

// grepArgs are grep's arguments.
type grepArgs struct {
	Pattern        string `json:"pattern"`
	Path           string `json:"path,omitempty"`
	Glob           string `json:"glob,omitempty"`
	IncludeIgnored bool   `json:"include_ignored,omitempty" jsonschema:"also search files that .gitignore, .git/info/exclude or dependency folders (node_modules, target, .venv…) leave out"`
}

// listDirArgs are list_dir's arguments.
type listDirArgs struct {
	Path string `json:"path,omitempty"`
}

// taskArgs are task_output's and task_kill's arguments.
type taskArgs struct {
	TaskID string `json:"task_id"`
}

// taskStatusArgs are task_status's arguments (no task_id: all tasks).
type taskStatusArgs struct {
	TaskID string `json:"task_id,omitempty"`
}

// spawnAgentArgs are spawn_agent's arguments.
type spawnAgentArgs struct {
	Task  string `json:"task" jsonschema:"what the subagent should do and report"`
	Scope struct {
		Allow []string `json:"allow,omitempty"`
		Deny  []string `json:"deny,omitempty"`
	} `json:"scope,omitzero"`
	Wait bool `json:"wait,omitempty" jsonschema:"wait for the report"`
}

// waitAgentArgs are wait_agent's arguments.
type waitAgentArgs struct {
	Handle   string `json:"handle"`
	TimeoutS int    `json:"timeout_s,omitempty"`
}
