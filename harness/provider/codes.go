package provider

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// apiError is an error object as the APIs send it: OpenAI's and
// OpenRouter's {"error":{...}}, Anthropic's {"type":"error","error":{...}},
// the Responses API's flat or nested error events, Ollama's bare string and
// Google's {"code":429,"status":"RESOURCE_EXHAUSTED"}.
type apiError struct {
	// Type is the provider's error type (or Google's status).
	Type string
	// Code is the provider's error code, a string or a number.
	Code string
	// Message is the provider's own message.
	Message string
	// RetryDelay is the wait of a google.rpc.RetryInfo detail (Gemini), or 0.
	RetryDelay time.Duration
}

// errorObject is the shape of one error object on the wire.
type errorObject struct {
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
	Status  string          `json:"status"`
	Error   json.RawMessage `json:"error"`
	Details []struct {
		Type       string `json:"@type"`
		RetryDelay string `json:"retryDelay"`
	} `json:"details"`
}

// parseAPIError reads an error body or event: nested under "error" or flat,
// possibly inside a one-element array; ok is false when raw holds no error.
func parseAPIError(raw []byte) (apiError, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var arr []json.RawMessage
		if json.Unmarshal(raw, &arr) != nil || len(arr) == 0 {
			return apiError{}, false
		}
		raw = arr[0]
	}
	var obj errorObject
	if json.Unmarshal(raw, &obj) != nil {
		var text string
		if json.Unmarshal(raw, &text) == nil && text != "" {
			return apiError{Message: text}, true
		}
		return apiError{}, false
	}
	if len(obj.Error) > 0 && string(obj.Error) != "null" {
		if inner, ok := parseAPIError(obj.Error); ok {
			inner.Type = firstNonEmpty(inner.Type, nonErrorType(obj.Type))
			return inner, true
		}
	}
	e := apiError{Type: firstNonEmpty(nonErrorType(obj.Type), obj.Status), Code: codeString(obj.Code), Message: obj.Message}
	for _, d := range obj.Details {
		if strings.HasSuffix(d.Type, "google.rpc.RetryInfo") {
			if w, err := time.ParseDuration(d.RetryDelay); err == nil && w > 0 {
				e.RetryDelay = w
			}
		}
	}
	return e, e.Message != "" || e.Code != "" || e.Type != ""
}

// nonErrorType drops the envelope's own type "error".
func nonErrorType(t string) string {
	if t == "error" {
		return ""
	}
	return t
}

// codeString reads a code given as a string or a number.
func codeString(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// name is the provider's type or code to show: the code when it says more.
func (e apiError) name() string {
	if e.Code != "" && (!isNumber(e.Code) || e.Type == "") {
		return e.Code
	}
	return e.Type
}

// kind maps the error to a sentinel, falling back to def. An exhausted
// credit balance is a quota whatever its type says, and so is a Gemini
// RESOURCE_EXHAUSTED that says the quota is exceeded: its "Please retry in
// 20s" comes with limits of 0 for models without a free tier, where waiting
// never helps (Google's generic "Resource has been exhausted" stays a rate
// limit).
func (e apiError) kind(def error) error {
	msg := strings.ToLower(e.Message)
	if strings.Contains(msg, "credit balance is too low") || strings.Contains(msg, "exceeded your current quota") {
		return ErrQuota
	}
	for _, s := range []string{e.Code, e.Type} {
		if k := codeKind(s); k != nil {
			return k
		}
	}
	if n, err := strconv.Atoi(e.Code); err == nil && n >= 400 {
		return kindForStatus(n)
	}
	return def
}

// isNumber reports whether s is all digits.
func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// codeKinds maps the providers' error types and codes to kinds.
var codeKinds = map[string]error{
	"insufficient_quota": ErrQuota, "billing_hard_limit_reached": ErrQuota, "billing_not_active": ErrQuota,
	"insufficient_credits": ErrQuota, "payment_required": ErrQuota, "quota_exceeded": ErrQuota,
	"rate_limit_exceeded": ErrRateLimited, "rate_limit_error": ErrRateLimited, "rate_limited": ErrRateLimited,
	"too_many_requests": ErrRateLimited, "resource_exhausted": ErrRateLimited, "tokens": ErrRateLimited,
	"requests": ErrRateLimited, "tokens_per_min": ErrRateLimited,
	"overloaded_error": ErrOverloaded, "overloaded": ErrOverloaded, "server_overloaded": ErrOverloaded,
	"unavailable": ErrOverloaded, "service_unavailable": ErrOverloaded, "engine_overloaded": ErrOverloaded,
	"authentication_error": ErrAuth, "permission_error": ErrAuth, "invalid_api_key": ErrAuth,
	"unauthorized": ErrAuth, "unauthenticated": ErrAuth, "permission_denied": ErrAuth, "forbidden": ErrAuth,
	"invalid_request_error": ErrBadRequest, "invalid_prompt": ErrBadRequest, "context_length_exceeded": ErrBadRequest,
	"model_not_found": ErrBadRequest, "not_found_error": ErrBadRequest, "invalid_argument": ErrBadRequest,
	"request_too_large": ErrBadRequest, "bad_request": ErrBadRequest, "invalid_value": ErrBadRequest,
	"server_error": ErrServer, "api_error": ErrServer, "internal_error": ErrServer,
	"internal_server_error": ErrServer, "timeout_error": ErrServer, "internal": ErrServer,
}

// codeKind maps one error type or code, or returns nil for an unknown one.
func codeKind(s string) error {
	return codeKinds[strings.ToLower(strings.TrimSpace(s))]
}

// kindForStatus maps an HTTP status to an error kind.
func kindForStatus(status int) error {
	switch {
	case status == http.StatusTooManyRequests:
		return ErrRateLimited
	case status == http.StatusPaymentRequired:
		return ErrQuota
	case status == 529:
		return ErrOverloaded
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return ErrAuth
	case status == http.StatusRequestTimeout:
		return ErrServer
	case status >= 500:
		return ErrServer
	case status >= 400:
		return ErrBadRequest
	}
	return ErrServer
}

// streamError builds the *Error for an error met inside a stream.
func streamError(e apiError, def error) *Error {
	return &Error{Kind: e.kind(def), Type: e.name(), Detail: trim(firstNonEmpty(e.Message, e.name(), "error event")),
		RetryAfter: hintInText(e.Message)}
}
