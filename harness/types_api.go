package harness

import (
	"exo/harness/api"
	"exo/harness/eventlog"
	"exo/harness/models"
	"exo/harness/provider"
	"exo/store"
)

// Session is api.Session.
type Session = api.Session

// ModelSpec is api.ModelSpec.
type ModelSpec = api.ModelSpec

// ThinkingOff is api.ThinkingOff.
const ThinkingOff = api.ThinkingOff

// RemoteQuery is api.RemoteQuery.
type RemoteQuery = api.RemoteQuery

// RemoteModel is api.RemoteModel.
type RemoteModel = api.RemoteModel

// TurnResult is api.TurnResult.
type TurnResult = api.TurnResult

// TurnNotice is api.TurnNotice.
type TurnNotice = api.TurnNotice

// Notice is api.Notice.
type Notice = api.Notice

// Progress is api.Progress.
type Progress = api.Progress

// DetachedTask is api.DetachedTask.
type DetachedTask = api.DetachedTask

// GCItem is api.GCItem.
type GCItem = api.GCItem

// GCReport is api.GCReport.
type GCReport = api.GCReport

// RecoveryReport is api.RecoveryReport.
type RecoveryReport = api.RecoveryReport

// Event is a committed event as the harness API hands it out, so the UI never imports the store.
type Event = api.Event

// Record is an event to append, as the harness API takes it.
type Record = store.Record

// Projection is anything folded from events one at a time.
type Projection = eventlog.Projection

// ErrBranchMoved means a session was rewound while a writer still held its old branch.
var ErrBranchMoved = eventlog.ErrBranchMoved

// StoreURLFile is the older user configuration, in EXO_HOME, that names the store (see
// eventlog.StoreURLFile).
const StoreURLFile = eventlog.StoreURLFile

// StoreURL returns the store location for home (see eventlog.StoreURL).
func StoreURL(home, option, configFile string) (string, error) {
	return eventlog.StoreURL(home, option, configFile)
}

// NewRecord encodes a typed payload into a store record.
func NewRecord(typ, actor string, payload any) (store.Record, error) {
	return eventlog.NewRecord(typ, actor, payload)
}

// MustRecord is NewRecord for payloads that always encode (plain structs).
func MustRecord(typ, actor string, payload any) store.Record {
	return eventlog.MustRecord(typ, actor, payload)
}

// NewID returns a 16-hex-digit id that sorts by creation time (seconds) and is unique.
func NewID() string { return eventlog.NewID() }

// NewName returns a memorable session name such as "aster-meadow-2e0e".
func NewName() string { return eventlog.NewName() }

// ModelCost prices a usage with a model's prices (see models.ModelCostOf).
func ModelCost(m ModelSpec, u provider.Usage) float64 { return models.ModelCost(m, u) }

// ModelCostOf prices a usage with a model's prices, telling whether the figure is the provider's
// own (see models.ModelCostOf).
func ModelCostOf(m ModelSpec, u provider.Usage) (cost float64, fromProvider bool) {
	return models.ModelCostOf(m, u)
}

// UsageOf converts a provider's usage into the usage recorded in events.
func UsageOf(u provider.Usage) Usage { return models.UsageOf(u) }

// ErrNoModel means no model is registered or named.
var ErrNoModel = models.ErrNoModel
