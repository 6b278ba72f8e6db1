package harness

import "exo/harness/api"

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
