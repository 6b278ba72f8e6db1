package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"exo/harness"
	"exo/harness/api"
)

// handler is a tool's work: a result (a string as it is, anything else as indented JSON) or
// an error, both redacted before they leave.
type handler[In any] func(ctx context.Context, in In) (any, error)

// add registers a tool whose input schema is inferred from In (descriptions from its
// jsonschema tags) and whose every result and error is redacted.
func add[In any](t *tools, srv *sdk.Server, tool *sdk.Tool, h handler[In]) {
	sdk.AddTool(srv, tool, func(ctx context.Context, _ *sdk.CallToolRequest, in In) (*sdk.CallToolResult, any, error) {
		out, err := h(ctx, in)
		if err != nil {
			return t.text(ctx, explain(err), true), nil, nil
		}
		s, err := render(out)
		if err != nil {
			return t.text(ctx, err.Error(), true), nil, nil
		}
		return t.text(ctx, s, false), nil, nil
	})
}

// render turns a result into text.
func render(v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("encode the result: %w", err)
	}
	return b.String(), nil
}

// text is a result holding redacted text. When the harness cannot redact, nothing of the text
// leaves: the caller gets the reason instead.
func (t *tools) text(ctx context.Context, s string, isErr bool) *sdk.CallToolResult {
	red, err := t.c.Redact(context.WithoutCancel(ctx), s)
	if err != nil {
		red, isErr = "exo could not redact the result, so it is withheld: "+err.Error(), true
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: red}}, IsError: isErr}
}

// explain adds what the caller can do about well-known errors.
func explain(err error) string {
	switch {
	case errors.Is(err, harness.ErrNoSession):
		return err.Error() + " (list_sessions shows the sessions' names and ids)"
	case errors.Is(err, harness.ErrAmbiguous):
		return err.Error() + " (give more of the id, or the session's name)"
	case errors.Is(err, api.ErrBusy):
		return err.Error() + " (a turn already runs on this session: wait_turn waits for it, cancel_turn stops it)"
	}
	return err.Error()
}

// session resolves a session reference.
func (t *tools) session(ctx context.Context, ref string) (*harness.Session, error) {
	if ref == "" {
		return nil, errors.New("name a session (its name, id or a unique id prefix; list_sessions shows them)")
	}
	return t.c.Session(ctx, ref)
}

// ptr returns a pointer to v (for tool annotations).
func ptr[T any](v T) *T { return &v }
