package provider

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// flaky fails with the given errors in turn, then succeeds.
type flaky struct {
	errs  []error
	calls int
}

func (f *flaky) Name() string { return "flaky" }

func (f *flaky) Stream(context.Context, Request, func(Delta)) (Response, error) {
	f.calls++
	if len(f.errs) > 0 {
		err := f.errs[0]
		f.errs = f.errs[1:]
		return Response{}, err
	}
	return Response{Text: "ok"}, nil
}

func TestBreakerOpensAndHalfOpens(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	b := &Breaker{Threshold: 3, Cooldown: time.Minute, Now: func() time.Time { return now }}
	boom := &Error{Provider: "flaky", Kind: ErrServer, Status: 500}
	f := &flaky{errs: []error{boom, boom, boom, boom}}
	r := NewReliable(f, RetryPolicy{MaxAttempts: 1}, b)
	for i := 0; i < 3; i++ {
		if _, err := r.Stream(context.Background(), Request{}, nil); !errors.Is(err, ErrServer) {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	wantEq(t, "state", b.State(), BreakerOpen)
	_, err := r.Stream(context.Background(), Request{}, nil)
	if !errors.Is(err, ErrCircuitOpen) || !strings.Contains(err.Error(), "calls resume in 1m0s") {
		t.Fatalf("open: %v", err)
	}
	wantEq(t, "calls while open", f.calls, 3)

	now = now.Add(time.Minute)
	wantEq(t, "state", b.State(), BreakerHalfOpen)
	if _, err := r.Stream(context.Background(), Request{}, nil); !errors.Is(err, ErrServer) {
		t.Fatalf("trial: %v", err)
	}
	wantEq(t, "state after failed trial", b.State(), BreakerOpen)

	now = now.Add(time.Minute)
	if _, err := r.Stream(context.Background(), Request{}, nil); err != nil {
		t.Fatalf("second trial: %v", err)
	}
	wantEq(t, "state after good trial", b.State(), BreakerClosed)
}

func TestBreakerHalfOpenAllowsOneTrial(t *testing.T) {
	now := time.Unix(0, 0)
	b := &Breaker{Threshold: 1, Cooldown: time.Second, Now: func() time.Time { return now }}
	b.Failure()
	now = now.Add(time.Second)
	if ok, _ := b.Allow(); !ok {
		t.Fatal("first trial refused")
	}
	if ok, _ := b.Allow(); ok {
		t.Fatal("second concurrent trial allowed")
	}
	b.Release()
	if ok, _ := b.Allow(); !ok {
		t.Fatal("trial refused after release")
	}
}

func TestAuthErrorsDoNotOpenTheBreaker(t *testing.T) {
	b := &Breaker{Threshold: 1}
	r := NewReliable(&flaky{errs: []error{&Error{Kind: ErrAuth, Status: 401}}}, RetryPolicy{}, b)
	_, _ = r.Stream(context.Background(), Request{}, nil)
	wantEq(t, "state", b.State(), BreakerClosed)
}

func TestRetryAfterTooLongFailsAtOnce(t *testing.T) {
	s := &sleeps{}
	f := &flaky{errs: []error{&Error{Kind: ErrRateLimited, Status: 429, RetryAfter: time.Hour}}}
	_, err := reliable(f, s).Stream(context.Background(), Request{}, nil)
	if !errors.Is(err, ErrRateLimited) || len(s.got) != 0 {
		t.Fatalf("err = %v, sleeps = %v", err, s.got)
	}
	wantEq(t, "message", err.Error(), ": rate limited (HTTP 429); retry after 1h0m0s or check the plan's limits")
}

func TestRetryStopsWhenContextEnds(t *testing.T) {
	f := &flaky{errs: []error{&Error{Kind: ErrServer}, &Error{Kind: ErrServer}}}
	r := NewReliable(f, RetryPolicy{Sleep: func(context.Context, time.Duration) error { return context.Canceled }}, nil)
	if _, err := r.Stream(context.Background(), Request{}, nil); !errors.Is(err, ErrServer) {
		t.Fatalf("err = %v", err)
	}
	wantEq(t, "calls", f.calls, 1)
}

func TestBackoffGrowsAndIsCapped(t *testing.T) {
	p := RetryPolicy{BaseDelay: time.Second, MaxDelay: 5 * time.Second, Jitter: func() float64 { return 0 }}
	var got []time.Duration
	for a := 1; a <= 5; a++ {
		got = append(got, p.Delay(a, 0))
	}
	wantEq(t, "delays", got, []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second,
		2500 * time.Millisecond, 2500 * time.Millisecond})
	wantEq(t, "retry-after wins", p.Delay(1, 3*time.Second), 3*time.Second)
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 22, 2, 30, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"": 0, "12": 12 * time.Second, "1.5": 1500 * time.Millisecond, "-3": 0, "soon": 0,
		"Sun, 22 Nov 2026 02:31:00 GMT": time.Minute,
		"Sun, 22 Nov 2026 02:29:00 GMT": 0,
	} {
		wantEq(t, in, ParseRetryAfter(in, now), want)
	}
	h := http.Header{}
	h.Set("retry-after-ms", "250")
	wantEq(t, "retry-after-ms", retryHint(h, "", now), 250*time.Millisecond)
}

func TestUnreachable(t *testing.T) {
	p := NewOpenAICompatible(Config{BaseURL: "http://127.0.0.1:1/v1"})
	_, err := p.Stream(context.Background(), testRequest("m"), nil)
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "check the base URL") {
		t.Fatalf("err = %v", err)
	}
}

func TestCancelIsNotAProviderError(t *testing.T) {
	api := newFakeAPI(t, reply{file: "chat-2-answer.sse", firstDelay: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := NewOpenAICompatible(Config{BaseURL: api.srv.URL}).Stream(ctx, testRequest("m"), nil)
	var pe *Error
	if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &pe) {
		t.Fatalf("err = %v", err)
	}
}

func TestStalledStreamIsCut(t *testing.T) {
	for _, c := range apiCases {
		t.Run(c.kind, func(t *testing.T) {
			body := fixture(t, c.fixtures[1])
			api := newFakeAPI(t, reply{body: body[:len(body)/2], stallAfter: 600 * time.Millisecond})
			p := c.newP(api.srv.URL)
			setIdle(p, 100*time.Millisecond)
			start := time.Now()
			_, err := p.Stream(context.Background(), testRequest(c.model), nil)
			if !errors.Is(err, ErrStreamCut) || !strings.Contains(err.Error(), "(no data for 100ms)") {
				t.Fatalf("err = %v", err)
			}
			if time.Since(start) > 500*time.Millisecond {
				t.Errorf("took %v: the watchdog did not fire", time.Since(start))
			}
		})
	}
}

// setIdle changes a provider's idle timeout.
func setIdle(p Provider, d time.Duration) {
	switch p := p.(type) {
	case *OpenAI:
		p.call.idle = d
	case *OpenAICompatible:
		p.call.idle = d
	case *Anthropic:
		p.call.idle = d
	}
}

func TestJSONInsteadOfStream(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"x","choices":[{"message":{"content":"not streamed"}}]}`))
	}))
	defer srv.Close()
	_, err := NewOpenAICompatible(Config{BaseURL: srv.URL}).Stream(context.Background(), testRequest("m"), nil)
	if !errors.Is(err, ErrMalformedStream) || !strings.Contains(err.Error(), "expected an event stream, got application/json") {
		t.Fatalf("err = %v", err)
	}
}
