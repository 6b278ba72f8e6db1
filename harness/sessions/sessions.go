package sessions

import (
	"fmt"
	"maps"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"exo/harness/api"
	"exo/harness/eventlog"
	"exo/store"
)

// NewSessionOptions describes a session to create.
type NewSessionOptions struct {
	Name      string
	Agent     string
	Workspace string
	Model     string
	Settings  map[string]string
}

// NewSession creates a session with a fresh root branch and its session.created event.
func (sv *Directory) NewSession(o NewSessionOptions) (*api.Session, error) {
	if o.Name == "" {
		o.Name = eventlog.NewName()
	}
	if o.Agent == "" {
		o.Agent = "default"
	}
	if err := validName(o.Name); err != nil {
		return nil, err
	}
	if o.Settings[ProjectIDKey] == "" {
		if id := ProjectID(o.Workspace); id != "" {
			o.Settings = maps.Clone(o.Settings)
			if o.Settings == nil {
				o.Settings = map[string]string{}
			}
			o.Settings[ProjectIDKey] = id
		}
	}
	s := &api.Session{ID: eventlog.NewID(), Name: o.Name, Agent: o.Agent, Workspace: o.Workspace, Settings: o.Settings}
	s.Branch, s.Branches = s.ID, []string{s.ID}
	var evs []store.Event
	err := sv.st.Update(func(tx *store.Tx) error {
		if err := nameFree(tx, o.Name); err != nil {
			return err
		}
		b, err := tx.NewBranch(s.Branch)
		if err != nil {
			return err
		}
		s.Created = b.Created
		evs, err = tx.Append(s.Branch, eventlog.MustRecord(api.TypeSessionCreated, api.ActorHarness,
			api.SessionCreated{Name: s.Name, Agent: s.Agent, Workspace: s.Workspace, Model: o.Model}))
		if err != nil {
			return err
		}
		return eventlog.PutSession(tx, s)
	})
	if err != nil {
		return nil, fmt.Errorf("create session %s: %w", o.Name, err)
	}
	sv.log.Committed(s.ID, s.Branch, eventlog.EventsOf(evs))
	return s, nil
}

// MaxNameLen bounds a session name, in bytes.
const MaxNameLen = 128

// validName checks a session name is usable as a reference and safe to print: letters, digits,
// '-', '_' and '.', as the error says. Anything else, escape sequences above all (a name is
// printed by exo sessions, exo log, exo run and the app, and exo mcp serve lets another agent
// choose one: an OSC 52 name filled the terminal's clipboard), is refused.
func validName(name string) error {
	ok := name != "" && len(name) <= MaxNameLen && utf8.ValidString(name)
	for _, r := range name {
		ok = ok && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.')
	}
	if !ok {
		return fmt.Errorf("session name %q: use 1-%d letters, digits, '-', '_' or '.'", name, MaxNameLen)
	}
	return nil
}

// nameFree checks no session already has name.
func nameFree(tx *store.Tx, name string) error {
	all, err := eventlog.ListSessions(tx)
	if err != nil {
		return err
	}
	for _, s := range all {
		if s.Name == name {
			return fmt.Errorf("a session named %q exists already (%s)", name, s.ID)
		}
	}
	return nil
}

// Sessions lists every session, oldest first.
func (sv *Directory) Sessions() (out []*api.Session, err error) {
	err = sv.st.View(func(tx *store.Tx) error {
		out, err = eventlog.ListSessions(tx)
		return err
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out, err
}

// Session returns a session by id, unique id prefix, or name.
func (sv *Directory) Session(ref string) (*api.Session, error) {
	var direct *api.Session
	_ = sv.st.View(func(tx *store.Tx) error {
		direct, _ = eventlog.GetSession(tx, ref) // the common case, an exact id: one key lookup
		return nil
	})
	if direct != nil {
		return direct, nil
	}
	all, err := sv.Sessions()
	if err != nil {
		return nil, err
	}
	var matches []*api.Session
	for _, s := range all {
		if s.ID == ref || s.Name == ref {
			return s, nil
		}
		if len(ref) >= 4 && strings.HasPrefix(s.ID, ref) {
			matches = append(matches, s)
		}
	}
	switch len(matches) {
	case 0:
		return nil, fmt.Errorf("session %q: %w (see 'exo sessions')", ref, api.ErrNoSession)
	case 1:
		return matches[0], nil
	}
	return nil, fmt.Errorf("session %q matches %d sessions: %w", ref, len(matches), api.ErrAmbiguous)
}

// UpdateSession applies fn to a session's record and stores it.
func (sv *Directory) UpdateSession(id string, fn func(*api.Session) error) (*api.Session, error) {
	var out *api.Session
	err := sv.st.Update(func(tx *store.Tx) error {
		s, err := eventlog.GetSession(tx, id)
		if err != nil {
			return err
		}
		if err := fn(s); err != nil {
			return err
		}
		out = s
		return eventlog.PutSession(tx, s)
	})
	return out, err
}
