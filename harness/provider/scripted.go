package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Scripted is a model that plays a Script: for offline demos and tests. Its
// name always starts with "scripted:" so that it is labelled as such.
type Scripted struct {
	script *Script
	// Sleep waits between pieces (default: a timer); tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
}

// NewScripted returns a provider that plays s.
func NewScripted(s *Script) *Scripted {
	return &Scripted{script: s, Sleep: sleepCtx}
}

// NewScriptedFile loads a script file and returns its provider.
func NewScriptedFile(path string) (*Scripted, error) {
	s, err := LoadScript(path)
	if err != nil {
		return nil, err
	}
	return NewScripted(s), nil
}

// Name returns "scripted:" and the script's name.
func (p *Scripted) Name() string { return "scripted:" + p.script.Name }

// Stream plays the turn whose number is the count of assistant messages since
// the last user prompt in req, streaming its text and tool calls in pieces: every
// new prompt plays the script from its first turn again, so a demo session can be
// asked more than once, and a resumed turn continues where it stopped.
func (p *Scripted) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Response, error) {
	n, prompts := 0, 0
	for _, m := range req.Messages {
		switch m.Role {
		case RoleAssistant:
			n++
		case RoleUser:
			n = 0
			prompts++
		}
	}
	if n >= len(p.script.Turns) {
		return Response{}, &Error{Provider: p.Name(), Kind: ErrScript,
			Detail: fmt.Sprintf("no turn %d: the script has %d", n+1, len(p.script.Turns))}
	}
	return p.play(ctx, req, n, prompts, onDelta)
}

// play streams turn n.
func (p *Scripted) play(ctx context.Context, req Request, n, prompt int, onDelta func(Delta)) (Response, error) {
	t := p.script.Turns[n]
	kind := failKinds[t.Fail]
	if kind != nil && kind != ErrStreamCut && kind != ErrMalformedStream {
		return Response{}, &Error{Provider: p.Name(), Kind: kind, Detail: "scripted failure"}
	}
	acc := newAccumulator(onDelta)
	if err := p.wait(ctx, p.script.FirstToken); err != nil {
		return Response{}, err
	}
	var sent int64
	for _, piece := range p.pieces(t.Text) {
		if err := p.wait(ctx, p.script.Delay); err != nil {
			return Response{}, acc.failed(err, "scripted", Usage{})
		}
		acc.addText(piece)
		sent += int64(len(piece))
	}
	if kind != nil {
		return Response{}, acc.failed(&Error{Provider: p.Name(), Kind: kind, Bytes: sent, Detail: "scripted failure"}, "scripted", Usage{})
	}
	if err := p.calls(ctx, acc, n, prompt, t.ToolCalls); err != nil {
		return Response{}, acc.failed(err, "scripted", Usage{})
	}
	out := acc.response("scripted", p.usage(req, acc), StopEndTurn)
	return out, nil
}

// calls streams the turn's tool calls with deterministic ids.
func (p *Scripted) calls(ctx context.Context, acc *accumulator, turn, prompt int, calls []ScriptCall) error {
	for i, c := range calls {
		args, err := json.Marshal(c.Args)
		if err != nil {
			return fmt.Errorf("%s: %w", p.Name(), err)
		}
		if c.Args == nil {
			args = []byte("{}")
		}
		id := fmt.Sprintf("call_%d_%d", turn+1, i+1)
		if prompt > 1 {
			id = fmt.Sprintf("call_p%d_%d_%d", prompt, turn+1, i+1)
		}
		acc.startCall(int64(i), id, c.Name)
		for _, piece := range p.pieces(string(args)) {
			if err := p.wait(ctx, p.script.Delay); err != nil {
				return err
			}
			acc.addArgs(int64(i), piece)
		}
	}
	return nil
}

// usage estimates the turn's tokens (bytes/4), as a scripted model has no
// tokenizer.
func (p *Scripted) usage(req Request, acc *accumulator) Usage {
	in := EstimateTokens(req.System)
	for _, m := range req.Messages {
		in += EstimateTokens(m.Text)
		for _, c := range m.ToolCalls {
			in += EstimateTokens(string(c.Arguments))
		}
	}
	out := EstimateTokens(acc.text.String())
	for _, c := range acc.calls {
		out += EstimateTokens(c.args.String())
	}
	return Usage{Input: int64(in), Output: int64(out)}
}

// pieces splits s into chunks of the script's size in runes.
func (p *Scripted) pieces(s string) []string {
	size := p.script.Chunk
	if s == "" {
		return nil
	}
	if size <= 0 {
		return []string{s}
	}
	var out []string
	runes := []rune(s)
	for len(runes) > 0 {
		k := min(size, len(runes))
		out = append(out, string(runes[:k]))
		runes = runes[k:]
	}
	return out
}

// wait pauses for d unless it is zero, honouring ctx.
func (p *Scripted) wait(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", p.Name(), err)
	}
	if d <= 0 {
		return nil
	}
	if err := p.Sleep(ctx, d); err != nil {
		return fmt.Errorf("%s: %w", p.Name(), err)
	}
	return nil
}
