package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// chatState folds Chat Completions chunks.
type chatState struct {
	acc   *accumulator
	model string
	usage Usage
	stop  StopReason
	keys  map[int64]int64 // wire index → accumulator key
}

// chatChunk is the part of a chat.completion.chunk that exo reads.
type chatChunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Index        int64     `json:"index"`
		FinishReason string    `json:"finish_reason"`
		Delta        chatDelta `json:"delta"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int64 `json:"prompt_tokens"`
		CompletionTokens    int64 `json:"completion_tokens"`
		PromptTokensDetails struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"` // an object, or a bare string (Ollama)
}

// chatDelta is a choice's new text and tool-call fragments.
type chatDelta struct {
	Content   string `json:"content"`
	Refusal   string `json:"refusal"`
	ToolCalls []struct {
		Index    int64  `json:"index"`
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// event applies one SSE event: a chunk, or [DONE].
func (s *chatState) event(data []byte) (bool, *Error) {
	if bytes.HasPrefix(data, []byte("[DONE]")) {
		if s.stop == "" {
			return true, &Error{Kind: ErrStreamCut, Detail: "[DONE] before finish_reason"}
		}
		return true, nil
	}
	var c chatChunk
	if err := decodeEvent(data, &c); err != nil {
		return false, err
	}
	return false, s.handle(&c)
}

// handle applies one chunk.
func (s *chatState) handle(c *chatChunk) *Error {
	if len(c.Error) > 0 && string(c.Error) != "null" {
		return &Error{Kind: ErrServer, Detail: trim(chatErrorText(c.Error))}
	}
	s.model = firstNonEmpty(c.Model, s.model)
	if u := c.Usage; u != nil && (u.PromptTokens > 0 || u.CompletionTokens > 0) {
		s.usage = Usage{Input: u.PromptTokens, Output: u.CompletionTokens, Cached: u.PromptTokensDetails.CachedTokens}
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue
		}
		if err := s.delta(&ch.Delta); err != nil {
			return err
		}
		if ch.FinishReason != "" {
			s.stop = chatStop(ch.FinishReason)
		}
	}
	return nil
}

// delta applies the text and tool-call pieces of one choice.
func (s *chatState) delta(d *chatDelta) *Error {
	s.acc.addText(d.Content)
	s.acc.addText(d.Refusal)
	for _, tc := range d.ToolCalls {
		key := s.key(tc.Index, tc.ID)
		if !s.acc.hasCall(key) {
			if tc.ID == "" || tc.Function.Name == "" {
				return &Error{Kind: ErrMalformedStream, Detail: "tool call fragment before its id and name"}
			}
			s.acc.startCall(key, tc.ID, tc.Function.Name)
		}
		s.acc.addArgs(key, tc.Function.Arguments)
	}
	return nil
}

// key maps a tool call's wire index to the accumulator's key. Some servers
// send every call whole with index 0; a new id at a known index therefore
// starts a new call under a fresh key.
func (s *chatState) key(index int64, id string) int64 {
	if s.keys == nil {
		s.keys = map[int64]int64{}
	}
	key, ok := s.keys[index]
	if !ok {
		key = index
	} else if id != "" && s.acc.callID(key) != id {
		key = int64(1)<<40 + int64(len(s.acc.calls))
	}
	s.keys[index] = key
	return key
}

// chatStop normalises a finish_reason.
func chatStop(r string) StopReason {
	switch r {
	case "stop":
		return StopEndTurn
	case "tool_calls", "function_call":
		return StopToolUse
	case "length":
		return StopMaxTokens
	case "content_filter":
		return StopRefusal
	}
	return StopReason(r)
}

// chatErrorText reads an in-stream error given as a string or as an object
// with a message and code.
func chatErrorText(raw json.RawMessage) string {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return text
	}
	var obj struct {
		Message string `json:"message"`
		Code    any    `json:"code"`
	}
	if json.Unmarshal(raw, &obj) == nil && (obj.Message != "" || obj.Code != nil) {
		return firstNonEmpty(obj.Message, fmt.Sprint(obj.Code))
	}
	return string(raw)
}
