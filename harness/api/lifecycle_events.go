package api

import "fmt"

// Types of the events that archive and remove sessions.
const (
	TypeSessionArchived = "session.archived"
	TypeSessionDeleted  = "session.deleted"
)

// SessionArchived records that a session was archived (hidden from lists) or brought back.
type SessionArchived struct {
	Archived bool `json:"archived"`
}

// SessionDeleted records that a session was removed, with the files exo made for it that go
// (its fork's working copy, snapshots repository, sandbox and executor state) when no other
// session uses them.
type SessionDeleted struct {
	Paths []string `json:"paths,omitempty"`
}

func init() {
	RegisterType(TypeSessionArchived, typed(FamilySession, func(p *SessionArchived) string {
		if p.Archived {
			return "archived"
		}
		return "brought back from the archive"
	}))
	RegisterType(TypeSessionDeleted, typed(FamilySession, func(p *SessionDeleted) string {
		return fmt.Sprintf("deleted (%d folders of exo's to remove)", len(p.Paths))
	}))
}
