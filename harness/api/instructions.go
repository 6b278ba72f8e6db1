package api

import (
	"fmt"
	"strings"
)

// TypeInstructionsLoaded records the instruction files (AGENTS.md, CLAUDE.md, the user's own)
// that joined the model's prompt: their text as recorded is what the prompt holds, so a
// rewind or fork sees the instructions as they were.
const TypeInstructionsLoaded = "instructions.loaded"

// Scopes of an instruction file (InstructionFile.Scope).
const (
	// InstructionsUser is the user's own file in exo's config folder.
	InstructionsUser = "user"
	// InstructionsProject is a file of the workspace's folder or of a folder above it, up to
	// the repository's root.
	InstructionsProject = "project"
	// InstructionsNested is a file of a folder inside the workspace, loaded when the agent
	// worked on files under it.
	InstructionsNested = "nested"
)

// InstructionFile is one instruction file as loaded.
type InstructionFile struct {
	// Path names the file for people: relative to the workspace ("AGENTS.md", "web/CLAUDE.md",
	// "../AGENTS.md"), or with ~ for the user's.
	Path  string `json:"path"`
	Scope string `json:"scope"`
	// Dir is the folder of the workspace a nested file applies to (slash separated).
	Dir string `json:"dir,omitempty"`
	// Bytes is the file's size; Truncated is set when Text holds only its first bytes.
	Bytes     int64 `json:"bytes"`
	Truncated bool  `json:"truncated,omitempty"`
	// Hash is the sha256 of the file's contents, to tell a changed file.
	Hash string `json:"hash"`
	// Text is the contents that joined the prompt (secrets redacted as every event is).
	Text string `json:"text"`
}

// InstructionsLoaded lists instruction files that joined the prompt. With Root, Files are the
// user's and the project's files in force from now on (replacing the previous ones, none when
// empty); otherwise they are nested files added to those already loaded.
type InstructionsLoaded struct {
	Root  bool              `json:"root,omitempty"`
	Files []InstructionFile `json:"files"`
}

// InstructionSource is an instruction file that applies to a folder, as `exo config` lists it.
type InstructionSource struct {
	Path  string `json:"path"`
	Scope string `json:"scope"`
	Bytes int64  `json:"bytes"`
	// Truncated is set when only the first bytes join the prompt.
	Truncated bool `json:"truncated,omitempty"`
}

// instructionsSummary names the files loaded, and those cut.
func instructionsSummary(p *InstructionsLoaded) string {
	if len(p.Files) == 0 {
		return "instructions: none apply any more"
	}
	names := make([]string, 0, len(p.Files))
	for _, f := range p.Files {
		n := f.Path
		if f.Truncated {
			n += fmt.Sprintf(" (%d bytes, cut)", f.Bytes)
		}
		names = append(names, n)
	}
	if p.Root {
		return "instructions loaded: " + strings.Join(names, ", ")
	}
	return "instructions added for the files worked on: " + strings.Join(names, ", ")
}

func init() {
	RegisterType(TypeInstructionsLoaded, typed(FamilySession, instructionsSummary))
	stateAppliers[TypeInstructionsLoaded] = func(s *SessionState, e Event, p any) {
		l := p.(*InstructionsLoaded)
		if l.Root {
			s.Instructions = s.Instructions[:0:0]
		}
		for _, f := range l.Files {
			s.Instructions = append(s.Instructions, f.Path)
		}
		s.addItem(Item{Seq: e.Seq, Kind: ItemNotice, Text: Summary(e)})
	}
}
