package cli

import (
	"context"
	"errors"
	"io"

	"exo/harness/api"
)

// Local is the work a few commands do in exo's own process with the harness's packages rather
// than through the daemon: reading the user's configuration, editing project and user files
// (governance, MCP servers), explaining a store the daemon cannot open, probing a local model
// server, serving MCP, and the detached-task runner. The command line links only the daemon's
// client and api; main.go gives app/cli/local's hooks. An error a hook marks with UsageError
// exits 2; a hook left nil makes its command fail with errNoLocal.
type Local struct {
	// UserConfigFile names the user's configuration file ("" without a home folder).
	UserConfigFile func() string
	// LoadConfig reads the user's and dir's configuration; the project file's trust is asked
	// of c only when there is one.
	LoadConfig func(ctx context.Context, c api.Client, dir string) (*api.Config, error)
	// ShowStoreEnv shows in cfg the store EXO_STORE (env) names, as the daemon started from
	// this environment opens it.
	ShowStoreEnv func(cfg *api.Config, env string)
	// Diagnose describes EXO_HOME's database without opening it (exo doctor, when the store
	// is damaged).
	Diagnose func(home string) Damage
	// RunDetached runs the background task whose folder is dir (exo's hidden __task-run).
	RunDetached func(dir string) error
	// InsideWarning says what exo does when workspace holds one of exo's own folders dirs
	// ("" when it holds none).
	InsideWarning func(workspace string, dirs []string) string
	// CompileGovernance validates dir's constitution and seals it into its policy lock.
	CompileGovernance func(dir string) (Compiled, error)
	// InitGovernance writes a starter constitution for the project in dir.
	InitGovernance func(dir string) (Initialized, error)
	// MCPAdd writes the server entry exo mcp add describes, refusing a sealed secret's value
	// in clear (asked of c); it returns the file written and the server's transport.
	MCPAdd func(ctx context.Context, c api.Client, a MCPAdd) (path, transport string, err error)
	// MCPRemove removes a server from scope's file for workspace, telling whether it was there.
	MCPRemove func(scope, workspace, name string) (path string, removed bool, err error)
	// MCPFiles names the project's and the user's MCP configuration files.
	MCPFiles func() (project, user string)
	// MCPServe serves exo's sessions over MCP on s's stdin and stdout until the client leaves.
	MCPServe func(ctx context.Context, c api.Client, s MCPServe) error
	// ProviderKinds lists the model providers exo model register takes.
	ProviderKinds func() []string
	// OllamaModels lists the models a local Ollama serves, and the chat URL to register them
	// with.
	OllamaModels func(ctx context.Context) (names []string, chatURL string, err error)
}

// errNoLocal fails a command whose hook main.go did not give.
var errNoLocal = errors.New("this exo cannot run this command: it was built without the harness's local commands")

// Damage is what Local.Diagnose finds about EXO_HOME's database.
type Damage struct {
	// Path is the database file; Size its size in bytes (-1 when it is missing).
	Path string
	Size int64
	// Problem is damage found in the file itself; Verdict the damage an earlier process
	// recorded.
	Problem, Verdict string
}

// Compiled is what exo compile sealed.
type Compiled struct {
	// Constitution and Lock are the files, relative to the project's folder.
	Constitution, Lock string
	// SHA256 is the lock's digest of the constitution.
	SHA256 string
	// Rules, Deny and Checks count the constitution's rules, deny patterns and checks.
	Rules, Deny, Checks int
}

// Initialized is what exo init wrote.
type Initialized struct {
	// Constitution is the file written, relative to the project's folder.
	Constitution string
	// Language is the project's language ("" when unknown); Test its guessed check command.
	Language, Test string
	// Note says what could not be guessed and why (a missing manifest), or "".
	Note string
}

// MCPAdd is one exo mcp add: the server's name and COMMAND|URL [ARGS...], and its flags.
type MCPAdd struct {
	Name      string
	Args      []string
	Scope     string
	Transport string
	Approve   string
	// Env and Headers are the -e KEY=VALUE and -H 'Name: value' flags.
	Env, Headers []string
	AutoApprove  []string
	Timeout      int
	NoSandbox    bool
	NoNetwork    bool
	// Workspace is the folder a project scope's .mcp.json is in.
	Workspace string
}

// MCPServe is one exo mcp serve.
type MCPServe struct {
	Stdin  io.Reader
	Stdout io.Writer
	// Version is exo's, as the server announces it.
	Version string
	// Workspace is the folder new sessions may work in by default; Allow lists further ones
	// (absolute).
	Workspace string
	Allow     []string
}
