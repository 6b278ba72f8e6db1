package api

import (
	"exo/harness"
	"exo/harness/executor"
	"exo/harness/executors"
	"exo/harness/governance"
	"exo/harness/mcp"
	"exo/harness/secrets"
)

// The types of the method table (methods.go) and of StreamFrame that other packages still
// declare. This is the one file of the table that names them: when they move into this package
// these aliases go, and methods.go is unchanged but for their names.
type (
	session          = harness.Session
	sessionState     = harness.SessionState
	event            = harness.Event
	turnResult       = harness.TurnResult
	turnNotice       = harness.TurnNotice
	progress         = harness.Progress
	detachedTask     = harness.DetachedTask
	modelSpec        = harness.ModelSpec
	remoteQuery      = harness.RemoteQuery
	verifyReport     = harness.VerifyReport
	gcReport         = harness.GCReport
	compactionReport = executor.CompactionReport
	executorInfo     = executors.Info
	mcpStatus        = mcp.Status
	secretInfo       = secrets.Info
	scope            = governance.Scope
	memento          = governance.Memento
)
