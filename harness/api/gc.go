package api

// GCItem is one of exo's folders that no live session uses any more.
type GCItem struct {
	Path string `json:"path"`
	// Kind is worktree (a fork's working copy), snapshots (a shadow repository), sandbox (a
	// temporary folder) or executor (an external agent's state).
	Kind  string `json:"kind"`
	Bytes int64  `json:"bytes"`
}

// GCReport is what a collection found and did.
type GCReport struct {
	Items []GCItem `json:"items"`
	// Bytes adds up the items' sizes.
	Bytes int64 `json:"bytes"`
	// Removed is false for a dry run.
	Removed bool `json:"removed"`
	// Checkpoints counts the Session checkpoints pruned (would be, in a dry run) from this
	// daemon's sessions' branches: those retention does not keep (store.PruneCheckpoints), left
	// by sessions last checkpointed before it existed.
	Checkpoints int      `json:"checkpoints"`
	Problems    []string `json:"problems,omitempty"`
}
