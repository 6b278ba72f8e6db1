package provider

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// retryHint reads how long the provider asked to wait: Retry-After-Ms,
// Retry-After, the reset time of an exhausted rate limit
// (x-ratelimit-reset-requests/-tokens as OpenAI and Groq send them,
// anthropic-ratelimit-*-reset), and last the error's own text ("Please try
// again in 11s"). Zero means no hint.
func retryHint(h http.Header, msg string, now time.Time) time.Duration {
	if h != nil {
		if ms := h.Get("Retry-After-Ms"); ms != "" {
			if f, err := strconv.ParseFloat(ms, 64); err == nil && f >= 0 {
				return time.Duration(f * float64(time.Millisecond))
			}
		}
		if d := ParseRetryAfter(h.Get("Retry-After"), now); d > 0 {
			return d
		}
		if d := limitReset(h, now); d > 0 {
			return d
		}
	}
	return hintInText(msg)
}

// limitReset is the longest reset among the rate limits whose remaining
// count is zero; limits not exhausted are ignored.
func limitReset(h http.Header, now time.Time) time.Duration {
	var wait time.Duration
	for _, lim := range []string{"requests", "tokens"} {
		if h.Get("X-Ratelimit-Remaining-"+lim) == "0" {
			wait = max(wait, parseReset(h.Get("X-Ratelimit-Reset-"+lim), now))
		}
	}
	for _, lim := range []string{"requests", "tokens", "input-tokens", "output-tokens"} {
		if h.Get("Anthropic-Ratelimit-"+lim+"-Remaining") == "0" {
			wait = max(wait, parseReset(h.Get("Anthropic-Ratelimit-"+lim+"-Reset"), now))
		}
	}
	return wait
}

// parseReset reads a reset given as a duration ("6m0s", "7.66s", "20ms"),
// seconds, or an RFC 3339 time.
func parseReset(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if d, err := time.ParseDuration(v); err == nil {
		return max(d, 0)
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && f > 0 {
		return time.Duration(f * float64(time.Second))
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// textHint finds a wait in an error message: "try again in 11s", "Please
// retry in 2.5s", "try again in 2m27.936s", "retry after 20 seconds".
var textHint = regexp.MustCompile(`(?i)(?:try again|retry)(?: in| after)\s+((?:\d+(?:\.\d+)?(?:ms|h|m|s))+|\d+(?:\.\d+)?\s*(?:seconds?|secs?|minutes?|mins?|milliseconds?))\b`)

// hintInText reads a wait from an error message; zero when there is none.
func hintInText(msg string) time.Duration {
	m := textHint.FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	v := strings.ToLower(strings.TrimSpace(m[1]))
	if d, err := time.ParseDuration(v); err == nil {
		return max(d, 0)
	}
	num := strings.TrimRight(v, "abcdefghijklmnopqrstuvwxyz ")
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 {
		return 0
	}
	unit := time.Second
	switch {
	case strings.HasPrefix(strings.TrimSpace(v[len(num):]), "mil"):
		unit = time.Millisecond
	case strings.HasPrefix(strings.TrimSpace(v[len(num):]), "min"):
		unit = time.Minute
	}
	return time.Duration(f * float64(unit))
}

// ParseRetryAfter reads a Retry-After value, delta-seconds or HTTP date,
// relative to now; it returns zero for an absent, past or unreadable value.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if f < 0 {
			return 0
		}
		return time.Duration(f * float64(time.Second))
	}
	t, err := http.ParseTime(v)
	if err != nil || !t.After(now) {
		return 0
	}
	return t.Sub(now)
}
