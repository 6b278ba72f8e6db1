package api

// ExecutorInfo is what `exo doctor` shows of an executor.
type ExecutorInfo struct {
	Name    string `json:"name"`
	Usable  bool   `json:"usable"`
	Binary  string `json:"binary,omitempty"`
	Version string `json:"version,omitempty"`
	Problem string `json:"problem,omitempty"`
	// NativeTools is set when the agent was selected with its own tools.
	NativeTools bool `json:"native_tools,omitempty"`
}
