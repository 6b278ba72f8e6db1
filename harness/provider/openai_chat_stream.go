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
	Error *struct {
		Message string `json:"message"`
		Code    any    `json:"code"`
	} `json:"error"`
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

// read consumes the stream until [DONE] or its end.
func (s *chatState) read(r *sseReader) *Error {
	for r.Next() {
		data := r.Data()
		if bytes.HasPrefix(data, []byte("[DONE]")) {
			return s.finished()
		}
		var c chatChunk
		if err := json.Unmarshal(data, &c); err != nil {
			return &Error{Kind: ErrMalformedStream, Detail: trim(err.Error()), Err: err}
		}
		if err := s.handle(&c); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return &Error{Kind: ErrStreamCut, Err: err}
	}
	return s.finished()
}

// finished reports a stream that ended before a finish_reason.
func (s *chatState) finished() *Error {
	if s.stop == "" {
		return &Error{Kind: ErrStreamCut, Detail: "ended before finish_reason"}
	}
	return nil
}

// handle applies one chunk.
func (s *chatState) handle(c *chatChunk) *Error {
	if c.Error != nil {
		return &Error{Kind: ErrServer, Detail: trim(firstNonEmpty(c.Error.Message, fmt.Sprint(c.Error.Code)))}
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
		if !s.acc.hasCall(tc.Index) {
			if tc.ID == "" || tc.Function.Name == "" {
				return &Error{Kind: ErrMalformedStream, Detail: "tool call fragment before its id and name"}
			}
			s.acc.startCall(tc.Index, tc.ID, tc.Function.Name)
		}
		s.acc.addArgs(tc.Index, tc.Function.Arguments)
	}
	return nil
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
