package provider

import (
	"bytes"
	"encoding/json"
)

// chatState folds Chat Completions chunks.
type chatState struct {
	acc   *accumulator
	model string
	usage Usage
	stop  StopReason
	keys  map[int64]int64 // wire index → accumulator key
	// outside says the endpoint counts reasoning tokens outside completion_tokens.
	outside bool
	// details maps a reasoning_details entry's type to a slot of its key.
	details map[string]int64
	// chunk is the chunk being decoded, and choices the room its choices are decoded into:
	// reused, so that a text delta allocates only its text.
	chunk   chatChunk
	choices []chatChoice
	// tmpl decodes chunks that differ from the one before only in their text.
	tmpl chatTemplate
}

// chatChunk is the part of a chat.completion.chunk that exo reads.
type chatChunk struct {
	Model   string          `json:"model"`
	Choices []chatChoice    `json:"choices"`
	Usage   *chatUsage      `json:"usage"`
	Error   json.RawMessage `json:"error"` // an object, or a bare string (Ollama)
}

// chatChoice is one choice of a chunk.
type chatChoice struct {
	Index        int64     `json:"index"`
	FinishReason string    `json:"finish_reason"`
	Delta        chatDelta `json:"delta"`
}

// chatUsage is the usage object, with the extensions of DeepSeek
// (prompt_cache_hit_tokens), OpenRouter (cache_write_tokens, cost) and xAI
// (cost_in_usd_ticks, reasoning tokens outside completion_tokens).
type chatUsage struct {
	PromptTokens        acctCount `json:"prompt_tokens"`
	CompletionTokens    acctCount `json:"completion_tokens"`
	TotalTokens         acctCount `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens     acctCount `json:"cached_tokens"`
		CacheWriteTokens acctCount `json:"cache_write_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens acctCount `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	PromptCacheHitTokens acctCount `json:"prompt_cache_hit_tokens"`
	Cost                 acctCost  `json:"cost"`
	CostInUSDTicks       acctCount `json:"cost_in_usd_ticks"`
}

// chatDelta is a choice's new text, reasoning and tool-call fragments.
type chatDelta struct {
	Content string `json:"content"`
	Refusal string `json:"refusal"`
	// The reasoning fields are pointers, allocated only for chunks that carry them, so that
	// plain text chunks cost no more to decode.
	ReasoningContent *string          `json:"reasoning_content"`
	Reasoning        *string          `json:"reasoning"`
	ReasoningDetails *[]chatReasoning `json:"reasoning_details"`
	ToolCalls        []chatToolCall   `json:"tool_calls"`
}

// chatToolCall is a fragment of one tool call.
type chatToolCall struct {
	Index    int64        `json:"index"`
	ID       string       `json:"id"`
	Function chatFunction `json:"function"`
}

// chatFunction is a tool call fragment's name and arguments.
type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// chatReasoning is a fragment of one reasoning_details entry.
type chatReasoning struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	Summary   string `json:"summary"`
	Data      string `json:"data"`
	Signature string `json:"signature"`
	ID        string `json:"id"`
	Format    string `json:"format"`
	Index     int    `json:"index"`
}

// event applies one SSE event: a chunk, or [DONE].
func (s *chatState) event(data []byte) (bool, *Error) {
	if bytes.HasPrefix(data, []byte("[DONE]")) {
		if s.stop == "" {
			return true, &Error{Kind: ErrStreamCut, Detail: "[DONE] before finish_reason"}
		}
		return true, nil
	}
	c := &s.chunk
	*c = chatChunk{}
	err := s.tmpl.decode(data, c, s.choices)
	if cap(c.Choices) > cap(s.choices) {
		s.choices = c.Choices[:0]
	}
	if err != nil {
		return false, err
	}
	return false, s.handle(c)
}

// handle applies one chunk.
func (s *chatState) handle(c *chatChunk) *Error {
	if len(c.Error) > 0 && string(c.Error) != "null" {
		ae, _ := parseAPIError(c.Error)
		return streamError(ae, ErrServer)
	}
	s.model = firstNonEmpty(c.Model, s.model)
	if u := c.Usage; u != nil && (u.PromptTokens > 0 || u.CompletionTokens > 0) {
		s.usage = u.usage(s.outside)
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue
		}
		if err := s.delta(&ch.Delta); err != nil {
			return err
		}
		if ch.FinishReason == "error" {
			return &Error{Kind: ErrServer, Detail: `the provider ended the answer with finish_reason "error" and no error message`}
		}
		if ch.FinishReason != "" {
			s.stop = chatStop(ch.FinishReason)
		}
	}
	return nil
}

// usage converts the wire usage: cache hits and writes, reasoning tokens
// (added to the output when the provider counts them outside
// completion_tokens: the endpoint is known to (outside: Vercel, for every
// model), the total says so (xAI), or there are more of them than
// completion tokens) and the provider's own cost.
func (u *chatUsage) usage(outside bool) Usage {
	out := Usage{Input: int64(u.PromptTokens), Output: int64(u.CompletionTokens),
		Cached:     int64(max(u.PromptTokensDetails.CachedTokens, u.PromptCacheHitTokens)),
		CacheWrite: int64(u.PromptTokensDetails.CacheWriteTokens),
		Reasoning:  int64(u.CompletionTokensDetails.ReasoningTokens), Cost: float64(u.Cost)}
	if r := out.Reasoning; r > 0 && (outside || r > int64(u.CompletionTokens) || int64(u.TotalTokens) == int64(u.PromptTokens+u.CompletionTokens)+r) {
		out.Output += r
	}
	if u.CostInUSDTicks > 0 && out.Cost == 0 {
		out.Cost = float64(u.CostInUSDTicks) / 1e10
	}
	return out
}

// delta applies the text, reasoning and tool-call pieces of one choice.
func (s *chatState) delta(d *chatDelta) *Error {
	if d.ReasoningContent != nil || d.Reasoning != nil || d.ReasoningDetails != nil {
		s.reasoning(deref(d.ReasoningDetails), deref(d.ReasoningContent), deref(d.Reasoning))
	}
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

// The keys of reasoning parts in a chat stream; reasoning_details entries
// use keys from detailKeys up.
const (
	contentKey = -1
	plainKey   = -2
	detailKeys = 1 << 20
)

// reasoning applies a chunk's reasoning: reasoning_details when present
// (OpenRouter and Vercel also repeat their text in "reasoning"), else
// reasoning_content, else the "reasoning" field. A server that sends the
// same text as both reasoning_content and reasoning (vLLM while it renamed
// the field) gets both back: the reasoning part is kept hidden.
func (s *chatState) reasoning(details []chatReasoning, content, plain string) {
	switch {
	case len(details) > 0:
		for i := range details {
			s.detail(&details[i])
		}
		if content != "" { // both (Kimi through Avian): kept to send back, not shown twice
			r := s.acc.startReasoning(contentKey, Reasoning{Format: ReasoningContent, Hidden: true})
			r.text.WriteString(content)
		}
	case content != "":
		r := s.acc.startReasoning(contentKey, Reasoning{Format: ReasoningContent})
		s.acc.addReasoningText(r, content)
		if plain != "" {
			s.acc.startReasoning(plainKey, Reasoning{Format: ReasoningPlain, Hidden: true}).text.WriteString(plain)
		}
	case plain != "":
		r := s.acc.startReasoning(plainKey, Reasoning{Format: ReasoningPlain})
		s.acc.addReasoningText(r, plain)
	}
}

// deref reads an optional field.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// detail merges a reasoning_details fragment into its entry, keyed by index
// and type: text, summary and data pieces are joined; ids, formats and
// signatures are taken as sent.
func (s *chatState) detail(f *chatReasoning) {
	if s.details == nil {
		s.details = map[string]int64{}
	}
	slot, ok := s.details[f.Type]
	if !ok {
		slot = int64(len(s.details))
		s.details[f.Type] = slot
	}
	r := s.acc.startReasoning(detailKeys+int64(f.Index)<<8+slot,
		Reasoning{Format: ReasoningDetails, Type: f.Type, DetailFormat: f.Format, Index: f.Index})
	r.part.ID, r.part.DetailFormat = firstNonEmpty(f.ID, r.part.ID), firstNonEmpty(f.Format, r.part.DetailFormat)
	r.part.Signature += f.Signature
	r.part.Data += f.Data
	s.acc.addReasoningText(r, f.Text)
	if f.Summary != "" {
		s.acc.addSummary(r, 0, f.Summary)
	}
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
