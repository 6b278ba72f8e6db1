package relay

import "os"

// Protocol is the version of the daemon's API (harness/daemon speaks it): a client and a daemon
// of different versions do not talk.
const Protocol = 1

// Upgrade is the protocol name of the HTTP upgrade, and Path the endpoint that takes it.
const (
	Upgrade = "exo-cli/1"
	Path    = "/v1/cli"
	// HeaderBuild carries the build id of the full exo the client pairs with: a daemon of
	// another build refuses, and the client runs the full exo, which replaces or explains it.
	HeaderBuild = "X-Exo-Build"
	// HeaderProtocol carries the daemon API's protocol version.
	HeaderProtocol = "X-Exo-Protocol"
)

// EnvKeys are the environment variables a relayed command's outcome depends on (where the
// user's configuration is, the time zone of printed times). The daemon runs a command line
// only when its own values of these equal the client's; otherwise the client runs the full exo.
var EnvKeys = []string{"HOME", "XDG_CONFIG_HOME", "TZ", "EXO_STORE"}

// PresenceKeys are environment variables whose values never leave the client (API keys): it
// says only which of them are set, for messages such as "OPENAI_API_KEY is set: seal it".
var PresenceKeys = []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY"}

// Environment returns this process's values of EnvKeys (absent keys left out) and the names of
// the PresenceKeys it has set: what an Invocation carries.
func Environment() (env map[string]string, set []string) {
	env = map[string]string{}
	for _, k := range EnvKeys {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	for _, k := range PresenceKeys {
		if os.Getenv(k) != "" {
			set = append(set, k)
		}
	}
	return env, set
}

// Invocation is a command line as the client has it.
type Invocation struct {
	// Args are the arguments after the program name.
	Args []string `json:"args"`
	// Dir is the client's working directory (absolute).
	Dir string `json:"dir"`
	// Home is the EXO_HOME the client resolved (its socket led here).
	Home string `json:"home"`
	// Env holds the client's values of EnvKeys; a key it does not have is absent.
	Env map[string]string `json:"env"`
	// Set names the PresenceKeys set (non-empty) in the client's environment.
	Set []string `json:"set,omitempty"`
	// Telemetry fingerprints the client's OTEL_* variables (TelemetryEnv; "" for none): the
	// daemon says when they are not the ones it runs with.
	Telemetry string `json:"telemetry,omitempty"`
}
