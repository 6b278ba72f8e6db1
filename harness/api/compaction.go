package api

import (
	"fmt"
	"strings"
)

// CompactionReport says what a compaction check did.
type CompactionReport struct {
	Pruned       bool `json:"pruned"`
	Summarized   bool `json:"summarized"`
	TokensBefore int  `json:"tokens_before"`
	TokensAfter  int  `json:"tokens_after"`
	// NoGain says why a summary was made but not used (it would not have made the prompt smaller).
	NoGain string `json:"no_gain,omitempty"`
}

// String describes a compaction for the user.
func (r CompactionReport) String() string {
	var did []string
	if r.Pruned {
		did = append(did, "pruned old tool outputs")
	}
	if r.Summarized {
		did = append(did, "summarised older turns")
	}
	if len(did) == 0 {
		return "nothing compacted"
	}
	return fmt.Sprintf("compacted: %s; prompt %d → %d tokens (the log keeps the full history)", strings.Join(did, " and "), r.TokensBefore, r.TokensAfter)
}
