//go:build !amd64 && !arm64

package sandbox

// No set-id filter is built for this architecture: Capabilities.Seccomp is false.
const (
	seccompAuditArch = 0
	seccompX32       = false
)

// modeRules and errnoRules are empty here.
var (
	modeRules  []modeRule
	errnoRules []errnoRule
)
