package provider

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// errCase is one error shape a provider sends, and what exo must make of it.
type errCase struct {
	name      string
	newP      func(url string) Provider
	first     reply
	then      string // the answer after a retry
	kind      error
	typ       string // the provider's own type or code
	detail    string // a piece of the provider's message
	wait      time.Duration
	retried   bool
	delivered bool // the error came after some output
}

func responsesP(u string) Provider { return NewOpenAI(Config{APIKey: "k", BaseURL: u + "/v1"}) }
func chatP(u string) Provider      { return NewOpenAICompatible(Config{APIKey: "k", BaseURL: u + "/v1"}) }
func anthropicP(u string) Provider { return NewAnthropic(Config{APIKey: "k", BaseURL: u}) }

var errCases = []errCase{
	{name: "responses quota error event (nested)", newP: responsesP, first: reply{file: "openai-responses-quota.sse"},
		kind: ErrQuota, typ: "insufficient_quota", detail: "You exceeded your current quota"},
	{name: "responses rate limit error event (flat) with a wait in its text", newP: responsesP,
		first: reply{file: "openai-responses-ratelimit.sse"}, then: "openai-responses-2-answer.sse", kind: ErrRateLimited, typ: "rate_limit_exceeded",
		detail: "Rate limit reached for gpt-4.1", wait: 11 * time.Second, retried: true},
	{name: "responses response.failed only", newP: responsesP,
		first: reply{body: `data: {"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"The model produced invalid content."}}}` + "\n\n"},
		then:  "openai-responses-2-answer.sse", kind: ErrServer, typ: "server_error", detail: "invalid content", retried: true},
	{name: "chat in-stream error with finish_reason error (OpenRouter)", newP: chatP, first: reply{file: "chat-openrouter-error.sse"},
		kind: ErrServer, typ: "server_error", detail: "Provider disconnected unexpectedly", delivered: true},
	{name: "chat finish_reason error and no error object", newP: chatP, first: reply{file: "chat-finish-error.sse"},
		kind: ErrServer, detail: `finish_reason "error"`, delivered: true},
	{name: "chat in-stream rate limit before any output", newP: chatP,
		first: reply{body: `data: {"error":{"message":"Rate limit exceeded: free-models-per-min. Please try again in 2.5s","code":429}}` + "\n\n"},
		kind:  ErrRateLimited, typ: "429", detail: "free-models-per-min", wait: 2500 * time.Millisecond, retried: true},
	{name: "HTTP 429 insufficient_quota", newP: chatP,
		first: reply{status: 429, body: `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`},
		kind:  ErrQuota, typ: "insufficient_quota", detail: "You exceeded your current quota"},
	{name: "HTTP 429 with the wait only in the text (Groq)", newP: chatP,
		first: reply{status: 429, body: "{\"error\":{\"message\":\"Rate limit reached for model `llama-3.3-70b-versatile` in organization `org_01jk` service tier `on_demand` on tokens per minute (TPM): Limit 12000, Used 11449, Requested 1362. Please try again in 4.055s.\",\"type\":\"tokens\",\"code\":\"rate_limit_exceeded\"}}"},
		kind:  ErrRateLimited, typ: "rate_limit_exceeded", detail: "tokens per minute", wait: 4055 * time.Millisecond, retried: true},
	{name: "HTTP 429 as an array (Google)", newP: chatP,
		first: reply{status: 429, body: `[{"error":{"code":429,"message":"Resource exhausted. Please retry in 2.5s.","status":"RESOURCE_EXHAUSTED"}}]`},
		kind:  ErrRateLimited, typ: "RESOURCE_EXHAUSTED", detail: "Please retry in 2.5s", wait: 2500 * time.Millisecond, retried: true},
	{name: "HTTP 429 Resource has been exhausted (Google, no wait)", newP: chatP,
		first: reply{status: 429, body: `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`},
		kind:  ErrRateLimited, typ: "RESOURCE_EXHAUSTED", detail: "Resource has been exhausted", retried: true},
	{name: "HTTP 429 RESOURCE_EXHAUSTED exceeded your current quota (Gemini, limit 0)", newP: chatP,
		first: reply{status: 429, file: "gemini-quota-429.json", header: map[string]string{"Content-Type": "application/json"}},
		kind:  ErrQuota, typ: "RESOURCE_EXHAUSTED", detail: "You exceeded your current quota", wait: 20044 * time.Millisecond},
	{name: "HTTP 429 with an exhausted x-ratelimit reset", newP: chatP,
		first: reply{status: 429, header: map[string]string{"x-ratelimit-remaining-requests": "499", "x-ratelimit-reset-requests": "120ms",
			"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "1.5s"},
			body: `{"error":{"message":"Rate limit reached","type":"tokens","code":"rate_limit_exceeded"}}`},
		kind: ErrRateLimited, typ: "rate_limit_exceeded", wait: 1500 * time.Millisecond, retried: true},
	{name: "HTTP 401 invalid_api_key", newP: responsesP,
		first: reply{status: 401, body: `{"error":{"message":"Incorrect API key provided: ''.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`},
		kind:  ErrAuth, typ: "invalid_api_key", detail: "Incorrect API key"},
	{name: "HTTP 402 insufficient credits (OpenRouter)", newP: chatP,
		first: reply{status: 402, body: `{"error":{"message":"This request requires more credits, or fewer max_tokens.","code":402}}`},
		kind:  ErrQuota, typ: "402", detail: "requires more credits"},
	{name: "HTTP 400 credit balance too low (Anthropic)", newP: anthropicP,
		first: reply{status: 400, body: `{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."},"request_id":"req_011CV1"}`},
		kind:  ErrQuota, typ: "invalid_request_error", detail: "credit balance is too low"},
	{name: "HTTP 429 with anthropic-ratelimit reset", newP: anthropicP,
		first: reply{status: 429, header: map[string]string{"anthropic-ratelimit-input-tokens-remaining": "0",
			"anthropic-ratelimit-input-tokens-reset": "in 30s"},
			body: `{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 30,000 input tokens per minute."}}`},
		then: "anthropic-2-answer.sse", kind: ErrRateLimited, typ: "rate_limit_error", detail: "input tokens per minute", wait: 30 * time.Second, retried: true},
	{name: "HTTP 200 with a JSON error body (a proxy)", newP: chatP,
		first: reply{status: 200, header: map[string]string{"Content-Type": "application/json"}, body: `{"error":{"message":"model 'qwen3' not found","type":"not_found_error"}}`},
		kind:  ErrBadRequest, typ: "not_found_error", detail: "model 'qwen3' not found"},
}

func TestProviderErrorShapes(t *testing.T) {
	for _, c := range errCases {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.first.header {
				if v == "in 30s" { // a reset time: relative to the run
					c.first.header = map[string]string{k: time.Now().Add(30 * time.Second).UTC().Format(time.RFC3339)}
					c.first.header[strings.Replace(k, "-reset", "-remaining", 1)] = "0"
				}
			}
			then := firstNonEmpty(c.then, "chat-2-answer.sse")
			api := newFakeAPI(t, c.first, reply{file: then})
			s := &sleeps{}
			_, err := reliable(c.newP(api.srv.URL), s).Stream(context.Background(), testRequest("m"), nil)
			var pe *Error
			if c.retried {
				// The retry gets an answer in another wire format, so only
				// the wait is checked here; the error is checked below.
				if err != nil || len(s.got) != 1 || !closeTo(s.got[0], c.wait) {
					t.Fatalf("waits %v, want one of %v: %v", s.got, c.wait, err)
				}
				_, err = c.newP(newFakeAPI(t, c.first).srv.URL).Stream(context.Background(), testRequest("m"), nil)
			} else if len(s.got) != 0 || len(api.requests()) != 1 {
				t.Fatalf("retried %d times (%v): %v", len(api.requests())-1, s.got, err)
			}
			if !errors.As(err, &pe) || !errors.Is(err, c.kind) {
				t.Fatalf("err = %v, want %v", err, c.kind)
			}
			wantEq(t, "type", pe.Type, c.typ)
			if !strings.Contains(pe.Detail, c.detail) {
				t.Errorf("detail %q lacks %q", pe.Detail, c.detail)
			}
			if c.wait > 0 && !closeTo(pe.RetryAfter, c.wait) {
				t.Errorf("retry after %v, want %v", pe.RetryAfter, c.wait)
			}
			wantEq(t, "retryable", pe.Retryable(), c.retried || c.kind == ErrServer)
		})
	}
}

// closeTo reports whether a wait matches want within a second, or exactly
// for waits without one (no hint: backoff).
func closeTo(got, want time.Duration) bool {
	if want == 0 {
		return got > 0 && got < 2*time.Second
	}
	return (got - want).Abs() < time.Second
}

func TestLongRateLimitResetFailsAtOnceWithTheWait(t *testing.T) {
	api := newFakeAPI(t, reply{status: 429, header: map[string]string{"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "6m0s"},
		body: `{"error":{"message":"Rate limit reached for requests per day (RPD)","type":"requests","code":"rate_limit_exceeded"}}`})
	s := &sleeps{}
	_, err := reliable(chatP(api.srv.URL), s).Stream(context.Background(), testRequest("m"), nil)
	if !errors.Is(err, ErrRateLimited) || len(s.got) != 0 || !strings.Contains(err.Error(), "retry after 6m0s") {
		t.Fatalf("err = %v, waits %v", err, s.got)
	}
}

func TestHintInText(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"Please try again in 11s.":               11 * time.Second,
		"Please try again in 2.092s. Visit ...":  2092 * time.Millisecond,
		"Please retry in 51.150919213s.":         51150919213 * time.Nanosecond,
		"try again in 2m27.936s":                 2*time.Minute + 27936*time.Millisecond,
		"Please try again in 250ms":              250 * time.Millisecond,
		"retry after 20 seconds":                 20 * time.Second,
		"Try again in 1 minute":                  time.Minute,
		"Please try again later.":                0,
		"retry in a while":                       0,
		"You exceeded your current quota (11s).": 0,
	} {
		wantEq(t, in, hintInText(in), want)
	}
}

func TestErrorNamesTheProvidersTypeAndMessage(t *testing.T) {
	api := newFakeAPI(t, reply{file: "openai-responses-quota.sse"})
	_, err := responsesP(api.srv.URL).Stream(context.Background(), testRequest("gpt-5"), nil)
	want := "openai: quota exhausted (insufficient_quota: You exceeded your current quota, please check your plan and billing details."
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "check the plan and billing") {
		t.Fatalf("err = %v", err)
	}
	if IsRetryable(err) {
		t.Error("an exhausted quota is retryable")
	}
	var pe *Error
	if errors.As(err, &pe); pe.Status != 0 || http.StatusText(pe.Status) != "" {
		t.Errorf("status %d for an in-stream error", pe.Status)
	}
}
