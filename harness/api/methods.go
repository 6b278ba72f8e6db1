package api

// The API's methods, each declared once: route, request, response and a line of doc. The
// daemon registers its handlers from this table, its client calls through it, and OpenAPI
// documents it. Adding a method is a line here, its handler and its client method.

// The handshake, answered to clients of any protocol version, and the API's own description.
var (
	MethodHello   = declare(Method[Empty, DaemonInfo]{Name: "Hello", Verb: "GET", Path: "/v1/hello", Handshake: true, Doc: "Says which daemon answers: its pid, build, protocol, socket and EXO_HOME."})
	MethodDrain   = declare(Method[DrainRequest, DrainResult]{Name: "Drain", Verb: "POST", Path: "/v1/daemon/drain", Body: true, Handshake: true, Doc: "Stops the daemon: at once, or (if_idle) only when idle and the client's build is newer."})
	MethodRelay   = declare(Method[Empty, Empty]{Name: "Relay", Verb: "POST", Path: "/v1/cli", Kind: Upgrade, Doc: "Upgrades the connection to run a thin client's command line in the daemon (see harness/relay)."})
	MethodOpenAPI = declare(Method[Empty, map[string]any]{Name: "OpenAPI", Verb: "GET", Path: "/v1/openapi.json", Doc: "Returns this API's OpenAPI 3.1 document."})
)

// The daemon and the workspace.
var (
	MethodActivity     = declare(Method[Empty, Activity]{Name: "Activity", Verb: "GET", Path: "/v1/activity", Doc: "Reports which sessions run turns and how many clients watch each."})
	MethodDoctor       = declare(Method[WorkspaceRef, DoctorReport]{Name: "Doctor", Verb: "GET", Path: "/v1/doctor", Params: []Param{query("workspace", "Workspace")}, Doc: "Reports the harness's state, the sandbox's enforcement and the workspace's MCP servers."})
	MethodMCPStatus    = declare(Method[MCPRequest, []MCPStatus]{Name: "MCPStatus", Verb: "GET", Path: "/v1/mcp", Params: []Param{query("workspace", "Workspace"), query("check", "Check")}, Doc: "Lists the MCP servers configured for a workspace; check starts each and counts its tools."})
	MethodProjectTrust = declare(Method[WorkspaceRef, ProjectTrust]{Name: "ProjectTrust", Verb: "GET", Path: "/v1/trust", Params: []Param{query("workspace", "Workspace")}, Doc: "Reports the code a workspace's project would run on the host and whether the user trusts it."})
	MethodTrust        = declare(Method[TrustRequest, ProjectTrust]{Name: "Trust", Verb: "POST", Path: "/v1/trust", Body: true, Doc: "Records the user's trust in a project's files as reviewed, or revokes it."})
	MethodRedact       = declare(Method[Text, Text]{Name: "Redact", Verb: "POST", Path: "/v1/redact", Body: true, Doc: "Replaces every sealed secret's value in a text by ‹secret:NAME›."})
	MethodCommands     = declare(Method[WorkspaceRef, []CommandInfo]{Name: "Commands", Verb: "GET", Path: "/v1/commands", Params: []Param{query("workspace", "Workspace")}, Doc: "Lists the custom slash commands a workspace offers (its .exo/commands and the user's)."})
)

// Sessions, their branches and their logs.
var (
	MethodListSessions   = declare(Method[Empty, []SessionInfo]{Name: "ListSessions", Verb: "GET", Path: "/v1/sessions", Doc: "Lists every Session, oldest first, with its projected state."})
	MethodNewSession     = declare(Method[NewSessionRequest, *Session]{Name: "NewSession", Verb: "POST", Path: "/v1/sessions", Body: true, Doc: "Creates a session (scope and governance records included)."})
	MethodSession        = declare(Method[Ref, *Session]{Name: "Session", Verb: "GET", Path: "/v1/sessions/{ref}", Params: []Param{path("ref", "Ref")}, Doc: "Resolves a session by id, unique id prefix or name."})
	MethodTakeOver       = declare(Method[Ref, *Session]{Name: "TakeOver", Verb: "POST", Path: "/v1/sessions/{ref}/takeover", Params: []Param{path("ref", "Ref")}, Doc: "Makes another daemon's session on a shared store this daemon's once that daemon is gone."})
	MethodSetSetting     = declare(Method[SettingRequest, *Session]{Name: "SetSetting", Verb: "POST", Path: "/v1/sessions/{id}/settings", Params: []Param{path("id", "Session")}, Body: true, Doc: "Sets one of a session's settings (model, executor, budgets…); an empty value removes it."})
	MethodFork           = declare(Method[ForkRequest, *Session]{Name: "Fork", Verb: "POST", Path: "/v1/sessions/{id}/fork", Params: []Param{path("id", "Session")}, Body: true, Doc: "Starts a sibling from a session's history up to seq (0: its head)."})
	MethodRewind         = declare(Method[SeqRequest, *Session]{Name: "Rewind", Verb: "POST", Path: "/v1/sessions/{id}/rewind", Params: []Param{path("id", "Session"), query("seq", "Seq")}, Doc: "Continues a session from seq on a new branch, files included."})
	MethodRewindPreview  = declare(Method[SeqRequest, RewindPlan]{Name: "RewindPreview", Verb: "GET", Path: "/v1/sessions/{id}/rewind", Params: []Param{path("id", "Session"), query("seq", "Seq")}, Doc: "Says what a rewind to seq would undo."})
	MethodFiles          = declare(Method[SessionRef, []string]{Name: "Files", Verb: "GET", Path: "/v1/sessions/{id}/files", Params: []Param{path("id", "Session")}, Doc: "Lists the session's workspace for @path completion (folders end with a slash)."})
	MethodSay            = declare(Method[SayRequest, Event]{Name: "Say", Verb: "POST", Path: "/v1/sessions/{id}/messages", Params: []Param{path("id", "Session")}, Body: true, Doc: "Appends a user message without running a turn."})
	MethodTail           = declare(Method[TailRequest, StreamFrame]{Name: "Tail", Verb: "GET", Path: "/v1/sessions/{id}/events", Kind: Stream, Params: []Param{path("id", "Session"), query("after", "After"), query("branch", "Branch"), query("attach", "Attach"), query("client", "Client")}, Doc: "Streams a session's committed events after a seq, then its live notices (api.Client's Watch of one Session)."})
	MethodFileAtSnapshot = declare(Method[FileRequest, Text]{Name: "FileAtSnapshot", Verb: "GET", Path: "/v1/sessions/{id}/file", Params: []Param{path("id", "Session"), query("path", "Path")}, Doc: "Returns a file as the session's newest snapshot holds it."})
	MethodState          = declare(Method[StateRequest, *SessionState]{Name: "State", Verb: "GET", Path: "/v1/branches/{branch}/state", Params: []Param{path("branch", "Branch"), query("seq", "Seq")}, Doc: "Returns a branch's Session projection at its head, or as of seq (api.Client's State and StateAt)."})
	MethodEvents         = declare(Method[EventsRequest, []Event]{Name: "Events", Verb: "GET", Path: "/v1/branches/{branch}/events", Params: []Param{path("branch", "Branch"), query("from", "From"), query("to", "To")}, Doc: "Returns events from..to (to 0: the head) of a branch's whole history."})
	MethodBranchPoints   = declare(Method[BranchRef, map[uint64]int]{Name: "BranchPoints", Verb: "GET", Path: "/v1/branches/{branch}/points", Params: []Param{path("branch", "Branch")}, Doc: "Counts the forks and rewinds taken at each seq of a branch's history."})
	MethodVerify         = declare(Method[SessionRef, VerifyReport]{Name: "Verify", Verb: "GET", Path: "/v1/verify", Params: []Param{query("session", "Session")}, Doc: "Recomputes hash chains: of a session's branches, or everything when session is empty."})
	MethodArtifact       = declare(Method[IDRef, Empty]{Name: "Artifact", Verb: "GET", Path: "/v1/artifacts/{id}", Kind: Raw, Params: []Param{path("id", "ID")}, Doc: "Returns an artifact's bytes by id or unique prefix."})
)

// Turns and approvals.
var (
	MethodStartTurn      = declare(Method[TurnRequest, TurnStarted]{Name: "StartTurn", Verb: "POST", Path: "/v1/sessions/{id}/turns", Params: []Param{path("id", "Session")}, Body: true, Doc: "Appends the prompt and starts a turn; it returns at once (busy when a turn runs, unless when_busy queues or steers)."})
	MethodWaitTurn       = declare(Method[WaitRequest, TurnResult]{Name: "WaitTurn", Verb: "GET", Path: "/v1/sessions/{id}/turns/wait", Params: []Param{path("id", "Session"), query("turn", "Turn")}, Doc: "Waits for a turn of a session to end (the running or last one when turn is empty)."})
	MethodSelectExecutor = declare(Method[ExecutorRequest, ExecutorInfo]{Name: "SelectExecutor", Verb: "PUT", Path: "/v1/sessions/{id}/executor", Params: []Param{path("id", "Session")}, Body: true, Doc: "Makes an executor the one of the session's next turns (refused when it cannot run here)."})
	MethodUnqueue        = declare(Method[UnqueueRequest, Empty]{Name: "Unqueue", Verb: "DELETE", Path: "/v1/sessions/{id}/queue/{prompt}", Params: []Param{path("id", "Session"), path("prompt", "Prompt")}, Doc: "Takes back a prompt queued while a turn runs (not found once it was sent)."})
	MethodCancelTurn     = declare(Method[SessionRef, Empty]{Name: "CancelTurn", Verb: "POST", Path: "/v1/sessions/{id}/cancel", Params: []Param{path("id", "Session")}, Doc: "Stops the turn running on a session (no error when none runs)."})
	MethodApprove        = declare(Method[ApproveRequest, Empty]{Name: "Approve", Verb: "POST", Path: "/v1/sessions/{id}/approvals", Params: []Param{path("id", "Session")}, Body: true, Doc: "Answers an approval request; the first answer wins, later ones get resolved."})
	MethodGate           = declare(Method[GateRequest, GateResult]{Name: "Gate", Verb: "POST", Path: "/v1/sessions/{id}/gate", Params: []Param{path("id", "Session")}, Body: true, Doc: "Decides whether an action another agent asks for may run, asking the user when the policy says so."})
	MethodCompact        = declare(Method[SessionRef, CompactionReport]{Name: "Compact", Verb: "POST", Path: "/v1/sessions/{id}/compact", Params: []Param{path("id", "Session")}, Doc: "Compacts a session's prompt view now."})
)

// Commands and background tasks.
var (
	MethodExec        = declare(Method[ExecRequest, StreamFrame]{Name: "Exec", Verb: "POST", Path: "/v1/sessions/{id}/exec", Kind: Stream, Params: []Param{path("id", "Session")}, Body: true, Doc: "Runs a command in the session's sandbox as the user, streaming its output, then its result."})
	MethodEnforcement = declare(Method[SessionRef, EnforcementInfo]{Name: "Enforcement", Verb: "GET", Path: "/v1/sessions/{id}/enforcement", Params: []Param{path("id", "Session")}, Doc: "Reports the sandbox policy in force for a session."})
	MethodStartTask   = declare(Method[TaskRequest, DetachedTask]{Name: "StartTask", Verb: "POST", Path: "/v1/tasks", Body: true, Doc: "Runs a command detached in the background and returns its handle."})
	MethodTasks       = declare(Method[Empty, []DetachedTask]{Name: "Tasks", Verb: "GET", Path: "/v1/tasks", Doc: "Lists background tasks."})
	MethodTaskOutput  = declare(Method[IDRef, Empty]{Name: "TaskOutput", Verb: "GET", Path: "/v1/tasks/{id}/output", Kind: Raw, Params: []Param{path("id", "ID")}, Doc: "Returns a background task's output so far."})
	MethodKillTask    = declare(Method[IDRef, Empty]{Name: "KillTask", Verb: "DELETE", Path: "/v1/tasks/{id}", Params: []Param{path("id", "ID")}, Doc: "Kills a background task."})
)

// Models and sealed secrets.
var (
	MethodModels          = declare(Method[Empty, ModelList]{Name: "Models", Verb: "GET", Path: "/v1/models", Doc: "Lists registered models and names the default."})
	MethodModel           = declare(Method[NameRef, ModelSpec]{Name: "Model", Verb: "GET", Path: "/v1/model", Params: []Param{query("name", "Name")}, Doc: "Resolves a registered model by name (empty: the default)."})
	MethodRegisterModel   = declare(Method[ModelSpec, ModelSpec]{Name: "RegisterModel", Verb: "POST", Path: "/v1/models", Body: true, Doc: "Registers a model; its secret must be sealed already."})
	MethodRemoteModels    = declare(Method[RemoteQuery, RemoteModels]{Name: "RemoteModels", Verb: "POST", Path: "/v1/models/remote", Body: true, Doc: "Asks model endpoints which models they serve."})
	MethodRemoveModel     = declare(Method[NameRef, Empty]{Name: "RemoveModel", Verb: "DELETE", Path: "/v1/models/{name}", Params: []Param{path("name", "Name")}, Doc: "Removes a registered model."})
	MethodSetDefaultModel = declare(Method[NameRef, Empty]{Name: "SetDefaultModel", Verb: "PUT", Path: "/v1/models/default", Body: true, Doc: "Makes a registered model the default."})
	MethodSecrets         = declare(Method[Empty, []SecretInfo]{Name: "Secrets", Verb: "GET", Path: "/v1/secrets", Doc: "Lists sealed secrets: names and dates only."})
	MethodSetSecret       = declare(Method[SecretRequest, Empty]{Name: "SetSecret", Verb: "PUT", Path: "/v1/secrets/{name}", Params: []Param{path("name", "Name")}, Body: true, Doc: "Seals a secret; its value never comes back."})
	MethodRemoveSecret    = declare(Method[NameRef, Empty]{Name: "RemoveSecret", Verb: "DELETE", Path: "/v1/secrets/{name}", Params: []Param{path("name", "Name")}, Doc: "Removes a sealed secret."})
)

// Scopes, drift and the end of a session's work.
var (
	MethodScope        = declare(Method[SessionRef, Scope]{Name: "Scope", Verb: "GET", Path: "/v1/sessions/{id}/scope", Params: []Param{path("id", "Session")}, Doc: "Returns a session's scope."})
	MethodSetScope     = declare(Method[SetScopeRequest, Scope]{Name: "SetScope", Verb: "PUT", Path: "/v1/sessions/{id}/scope", Params: []Param{path("id", "Session")}, Body: true, Doc: "Replaces a session's scope (recorded as scope.set with the reason)."})
	MethodDrift        = declare(Method[SessionRef, DriftReport]{Name: "Drift", Verb: "GET", Path: "/v1/sessions/{id}/drift", Params: []Param{path("id", "Session")}, Doc: "Reports a session's drift and conflicts."})
	MethodConflictDiff = declare(Method[ConflictRequest, Diff]{Name: "ConflictDiff", Verb: "GET", Path: "/v1/sessions/{id}/conflicts", Params: []Param{path("id", "Session"), query("with", "With")}, Doc: "Renders the diffs of the paths a session and another both changed."})
	MethodFinish       = declare(Method[FinishRequest, *Memento]{Name: "Finish", Verb: "POST", Path: "/v1/sessions/{id}/finish", Params: []Param{path("id", "Session")}, Body: true, Doc: "Runs the constitution's checks and records the session's memento."})
	MethodHandoff      = declare(Method[HandoffRequest, *HandoffResult]{Name: "Handoff", Verb: "POST", Path: "/v1/sessions/{id}/handoff", Params: []Param{path("id", "Finish.Session")}, Body: true, Doc: "Finishes a session and hands it to another."})
)

// Archiving, removing and collecting.
var (
	MethodArchiveSession = declare(Method[ArchiveRequest, *Session]{Name: "ArchiveSession", Verb: "PUT", Path: "/v1/sessions/{ref}/archived", Params: []Param{path("ref", "Ref")}, Body: true, Doc: "Hides a session from lists and the siblings pane, or brings it back."})
	MethodRemoveSession  = declare(Method[Ref, RemoveResult]{Name: "RemoveSession", Verb: "DELETE", Path: "/v1/sessions/{ref}", Params: []Param{path("ref", "Ref")}, Doc: "Deletes a session (its events stay) and the folders no other session uses."})
	MethodGC             = declare(Method[GCRequest, GCReport]{Name: "GC", Verb: "POST", Path: "/v1/gc", Body: true, Doc: "Lists (dry_run) or removes the folders of exo's that no live session uses."})
	MethodBackup         = declare(Method[BackupRequest, BackupResult]{Name: "Backup", Verb: "POST", Path: "/v1/backup", Body: true, Doc: "Writes a consistent copy of the event store into EXO_HOME/backups, through no link, while the daemon runs on."})
)

// Watching.
var (
	MethodWatch  = declare(Method[WatchQuery, StreamFrame]{Name: "Watch", Verb: "GET", Path: "/v1/watch", Kind: Stream, Params: []Param{query("attach", "Attach"), query("client", "Client")}, Doc: "Streams every session's notices: committed events, live deltas, sandbox output, turn and client changes."})
	MethodAttach = declare(Method[AttachRequest, Empty]{Name: "Attach", Verb: "PUT", Path: "/v1/watch/{watch}/attach", Params: []Param{path("watch", "Watch")}, Body: true, Doc: "Counts a watch as a client of a session (empty session detaches it)."})
)

// Attempts: one prompt as several attempts side by side, scored, one kept.
var (
	MethodStartAttempts = declare(Method[AttemptsRequest, AttemptSet]{Name: "StartAttempts", Verb: "POST", Path: "/v1/attempts", Body: true, Doc: "Forks one sibling per executor and model pair at seq of a session and sends each the prompt at once."})
	MethodAttemptSet    = declare(Method[Ref, AttemptSet]{Name: "AttemptSet", Verb: "GET", Path: "/v1/attempts/{ref}", Params: []Param{path("ref", "Ref")}, Doc: "Returns an attempt set's scoreboard: by set id, a member, or the newest set started from a session."})
	MethodKeepAttempt   = declare(Method[KeepRequest, KeepResult]{Name: "KeepAttempt", Verb: "POST", Path: "/v1/attempts/keep", Body: true, Doc: "Makes an attempt's history and files its original session's; archives the others when asked."})
	MethodReplay        = declare(Method[ReplayRequest, AttemptSet]{Name: "Replay", Verb: "POST", Path: "/v1/replay", Body: true, Doc: "Re-runs a session's recorded prompts in a fork under another executor or model, answering approvals as recorded."})
)

// Images pasted from the clipboard.
var (
	MethodPasteImage = declare(Method[PasteImageRequest, PastedImage]{Name: "PasteImage", Verb: "POST", Path: "/v1/sessions/{id}/images", Params: []Param{path("id", "Session")}, Body: true, Doc: "Stores an image pasted from the clipboard (checked as a mentioned one) and returns the @clipboard:ID mention that attaches it."})
)
