package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"
)

// Script is a scripted model's turns, read from a YAML file. The format
// (documented with examples in testdata/scripts/README.md):
//
//	name: demo              # optional; defaults to the file name without extension
//	chunk: 4                # optional; stream text and arguments in pieces of 4 runes
//	delay: 15ms             # optional; pause between pieces
//	first_token: 300ms      # optional; pause before the first piece
//	turns:                  # one entry per model response, played in order
//	  - text: Let me look.  # the assistant's text (optional)
//	    tool_calls:         # tools to call (optional)
//	      - name: list_dir
//	        args: {path: .}
//	  - text: Done.
//	    fail: stream_cut    # optional; make this turn fail (see ScriptTurn.Fail)
//
// Which turn plays is the number of assistant messages since the last user prompt in the
// request, so the provider holds no state: a resumed session picks up at
// the right turn.
type Script struct {
	// Name labels the script; the provider is named "scripted:NAME".
	Name string `yaml:"name"`
	// Chunk is the size in runes of streamed pieces (0: one piece).
	Chunk int `yaml:"chunk"`
	// Delay is the pause between pieces.
	Delay time.Duration `yaml:"delay"`
	// FirstToken is the pause before the first piece.
	FirstToken time.Duration `yaml:"first_token"`
	// Turns are the model's responses, in order.
	Turns []ScriptTurn `yaml:"turns"`
}

// ScriptTurn is one scripted model response.
type ScriptTurn struct {
	// Text is the assistant's text.
	Text string `yaml:"text"`
	// ToolCalls are the tools the model calls.
	ToolCalls []ScriptCall `yaml:"tool_calls"`
	// Fail, if set, makes the turn fail: "rate_limited", "overloaded" or
	// "server" before any output, "stream_cut" or "malformed" after the text.
	Fail string `yaml:"fail"`
}

// ScriptCall is one scripted tool call.
type ScriptCall struct {
	// Name is the tool's name.
	Name string `yaml:"name"`
	// Args is the arguments object.
	Args map[string]any `yaml:"args"`
}

// failKinds maps a turn's fail value to an error kind.
var failKinds = map[string]error{
	"rate_limited": ErrRateLimited, "overloaded": ErrOverloaded, "server": ErrServer,
	"stream_cut": ErrStreamCut, "malformed": ErrMalformedStream,
}

// scriptName is the allowed shape of a script's name.
var scriptName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// LoadScript reads and checks a script file.
func LoadScript(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scripted: %w", err)
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return ParseScript(name, data)
}

// ParseScript parses a script; defName is used when the file names none.
func ParseScript(defName string, data []byte) (*Script, error) {
	var s Script
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("scripted: parse %s: %w", defName, err)
	}
	if s.Name == "" {
		s.Name = defName
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("scripted: %s: %w", s.Name, err)
	}
	return &s, nil
}

// check validates the script.
func (s *Script) check() error {
	if !scriptName.MatchString(s.Name) {
		return fmt.Errorf("name %q: use letters, digits, '.', '_' or '-'", s.Name)
	}
	if len(s.Turns) == 0 {
		return fmt.Errorf("no turns")
	}
	for i, t := range s.Turns {
		if t.Text == "" && len(t.ToolCalls) == 0 && t.Fail == "" {
			return fmt.Errorf("turn %d: empty (give text, tool_calls or fail)", i+1)
		}
		if _, ok := failKinds[t.Fail]; t.Fail != "" && !ok {
			return fmt.Errorf("turn %d: unknown fail %q", i+1, t.Fail)
		}
		for j, c := range t.ToolCalls {
			if c.Name == "" {
				return fmt.Errorf("turn %d, call %d: no name", i+1, j+1)
			}
			if _, err := json.Marshal(c.Args); err != nil {
				return fmt.Errorf("turn %d, call %d (%s): args: %w", i+1, j+1, c.Name, err)
			}
		}
	}
	return nil
}
