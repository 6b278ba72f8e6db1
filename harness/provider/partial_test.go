package provider

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestCutStreamCarriesWhatArrived cuts each API's recorded tool turn in the middle of the call's
// arguments: the error is still the stream cut, and it carries the whole text streamed before
// the cut, the call begun with the arguments received so far, and the usage only where the API
// had sent one (Anthropic's message_start carries the prompt's count).
func TestCutStreamCarriesWhatArrived(t *testing.T) {
	for _, c := range apiCases {
		t.Run(c.kind, func(t *testing.T) {
			body := fixture(t, c.fixtures[0])
			esc, _ := json.Marshal(c.argPieces[1])
			cut := strings.Index(body, string(esc[1:len(esc)-1]))
			api := newFakeAPI(t, reply{file: c.fixtures[0], cutAt: cut})
			_, err := c.newP(api.srv.URL).Stream(context.Background(), testRequest(c.model), nil)
			if !errors.Is(err, ErrStreamCut) {
				t.Fatalf("err = %v, want ErrStreamCut", err)
			}
			pe, ok := PartialOf(err)
			if !ok {
				t.Fatalf("the cut carries nothing: %v", err)
			}
			if want := strings.Join(c.text[0], ""); pe.Response.Text != want {
				t.Errorf("text %q, want %q", pe.Response.Text, want)
			}
			if len(pe.Response.ToolCalls) != 1 || pe.Response.ToolCalls[0].Name != c.call.Name || len(pe.Args) != 1 || pe.Args[0] != c.argPieces[0] {
				t.Errorf("calls %+v args %q, want %s with %q", pe.Response.ToolCalls, pe.Args, c.call.Name, c.argPieces[0])
			}
			if pe.Response.StopReason != "" {
				t.Errorf("a cut answer has stop reason %q", pe.Response.StopReason)
			}
			if anthropic := c.kind == "anthropic"; pe.UsageReported != anthropic || (anthropic && pe.Response.Usage.Input == 0) {
				t.Errorf("usage reported %v: %+v", pe.UsageReported, pe.Response.Usage)
			}
		})
	}
}

// TestCancelCarriesWhatArrived: a caller's cancel after the first text keeps that text with the
// context's error.
func TestCancelCarriesWhatArrived(t *testing.T) {
	c := apiCases[0]
	body := fixture(t, c.fixtures[1])
	body = body[:strings.Index(body, "event: response.completed")] // then the stream stalls
	api := newFakeAPI(t, reply{body: body, stallAfter: time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	_, err := c.newP(api.srv.URL).Stream(ctx, testRequest(c.model), func(d Delta) {
		if d.Kind == DeltaText {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	pe, ok := PartialOf(err)
	if !ok || !strings.HasPrefix(strings.Join(c.text[1], ""), pe.Response.Text) || pe.Response.Text == "" {
		t.Fatalf("partial %+v %v", pe, ok)
	}
}
