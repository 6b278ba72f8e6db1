// Package modeltest serves model wire formats from local HTTP servers that play scripted turns,
// for tests and benchmarks of external executors (Claude Code, Codex, ACP agents) offline. The
// servers are written from the providers' documented stream shapes, independently of exo's own
// encoders, so a bug on exo's side is not mirrored here.
package modeltest

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v4"
)

// Script is what a scripted server plays, read from YAML:
//
//	prompts:
//	  - when: make a file          # a substring of the conversation's last user prompt
//	    turns:                     # one entry per model response, in order
//	      - text: Running a command.
//	        tool_calls:
//	          - name: mcp__exo__bash
//	            input: {command: "echo hi > x.txt"}
//	      - text: Done.
//	  - turns:                     # no when: the fallback
//	      - text: Hello.
//
// The server holds no state: a request plays turn n+1 of the prompt entry whose when occurs
// last in the last user prompt, where n is the number of assistant messages after that prompt. So a
// forked or resumed conversation gets the turn its history calls for.
type Script struct {
	// Prompts are the scripted conversations, chosen by the last user prompt.
	Prompts []Prompt `yaml:"prompts"`
}

// Prompt is one scripted conversation.
type Prompt struct {
	// When selects this entry: a substring of the last user prompt ("" matches any).
	When string `yaml:"when"`
	// Turns are the model's responses in order.
	Turns []Turn `yaml:"turns"`
}

// Turn is one scripted model response.
type Turn struct {
	// Text is the answer's text.
	Text string `yaml:"text"`
	// Thinking is reasoning streamed before the text (a thinking block; a reasoning item with a
	// summary on the Responses wire).
	Thinking string `yaml:"thinking"`
	// ToolCalls are the tools the model calls after the text.
	ToolCalls []Call `yaml:"tool_calls"`
	// Items are output items sent as they are after the text, before the tool calls (Responses
	// wire only): items a server makes itself, such as a web_search_call.
	Items []map[string]any `yaml:"items"`
	// Chunk splits text and tool input into pieces of this many bytes (default 8).
	Chunk int `yaml:"chunk"`
	// DelayMs pauses before the first event and between pieces.
	DelayMs int `yaml:"delay_ms"`
	// Hang holds the request open after message_start until the client goes away or the server
	// is released (a model that never finishes).
	Hang bool `yaml:"hang"`
	// Status, when not 0 or 200, answers with this HTTP status and an error body.
	Status int `yaml:"status"`
	// Error is the error body's message with Status (default "scripted HTTP <status>").
	Error string `yaml:"error"`
	// InputTokens and OutputTokens are the usage reported (defaults: body bytes / 4, answer / 4).
	InputTokens  int `yaml:"input_tokens"`
	OutputTokens int `yaml:"output_tokens"`
}

// Call is one scripted tool call.
type Call struct {
	// Name is the tool's name as the agent offers it (e.g. mcp__exo__bash, Bash).
	Name string `yaml:"name"`
	// Input is the arguments object.
	Input map[string]any `yaml:"input"`
}

// LoadScript reads a script file.
func LoadScript(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("modeltest: %w", err)
	}
	return ParseScript(data)
}

// ParseScript parses a script; unknown fields are errors.
func ParseScript(data []byte) (*Script, error) {
	var s Script
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("modeltest: parse script: %w", err)
	}
	for i, p := range s.Prompts {
		if len(p.Turns) == 0 {
			return nil, fmt.Errorf("modeltest: prompt %d (%q): no turns", i+1, p.When)
		}
	}
	return &s, nil
}

// pick returns the prompt entry for a last user prompt and its index: of the entries whose when
// occurs in it, the one occurring last (an agent may fold an interrupted prompt and the next one
// into one message), else the fallback.
func (s *Script) pick(lastPrompt string) (int, *Prompt) {
	best, at := -1, -1
	for i := range s.Prompts {
		if p := &s.Prompts[i]; p.When != "" {
			if j := strings.LastIndex(lastPrompt, p.When); j > at {
				best, at = i, j
			}
		}
	}
	if best >= 0 {
		return best, &s.Prompts[best]
	}
	for i := range s.Prompts {
		if s.Prompts[i].When == "" {
			return i, &s.Prompts[i]
		}
	}
	return -1, nil
}

// errorMessage is the message of the error body a turn with Status answers with.
func (t *Turn) errorMessage() string {
	if t.Error != "" {
		return t.Error
	}
	return fmt.Sprintf("scripted HTTP %d", t.Status)
}
