package views

// TimelineSelectMsg reports that the selected event changed; the app
// previews the conversation as of Seq. Commands may deliver these out of
// order when keys repeat fast: drop those for which Timeline.IsCurrent is false.
type TimelineSelectMsg struct {
	Seq    uint64 // Seq is the selected event.
	Branch string // Branch is the selected event's branch.
	Latest bool   // Latest is true when the last event is selected (no preview needed).
	Req    uint64 // Req numbers selection changes; only the newest is current.
}

// ForkRequest asks the app to fork a new sibling session at Seq.
type ForkRequest struct {
	Seq    uint64 // Seq is the fork point.
	Branch string // Branch is the branch the fork point belongs to.
}

// RewindRequest asks the app to rewind this session to Seq (after confirming).
type RewindRequest struct {
	Seq    uint64 // Seq is the event to rewind to.
	Branch string // Branch is the branch the event belongs to.
}

// NextBranch asks the app to show the session's next branch in the timeline.
type NextBranch struct{}

// ShowEvent asks the app to show event Seq in full.
type ShowEvent struct {
	Seq    uint64 // Seq is the event to show.
	Branch string // Branch is the event's branch.
}

// AttemptsRequest asks the app to start several attempts from event Seq (it prefills the
// prompt with /attempts @Seq).
type AttemptsRequest struct {
	Seq uint64 // Seq is the event the attempts start from.
}
