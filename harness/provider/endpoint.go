package provider

import "net/url"

// The hosts whose rules exo knows.
const (
	// hostDeepSeek is DeepSeek's own API, which requires reasoning_content on every assistant
	// message with tool calls in thinking mode.
	hostDeepSeek = "api.deepseek.com"
	// hostVercel is Vercel's AI Gateway, which counts reasoning outside completion_tokens for
	// every model (its own cost prices completion plus reasoning tokens as output).
	hostVercel = "ai-gateway.vercel.sh"
)

// endpoint is what exo knows of the service behind a base URL, by its host: how it counts
// reasoning tokens and what it requires of the reasoning sent back.
type endpoint struct {
	// host is the base URL's host (or the API's default host).
	host string
	// origin is the host and model, stamped on the reasoning the service returns.
	origin string
}

// newEndpoint describes the service at baseURL (defaultHost when it has none) for model.
func newEndpoint(baseURL, defaultHost, model string) endpoint {
	host := defaultHost
	if u, err := url.Parse(baseURL); err == nil && u.Host != "" {
		host = u.Hostname()
	}
	return endpoint{host: host, origin: host + " " + model}
}

// deepSeek reports whether the endpoint is DeepSeek's own API.
func (e endpoint) deepSeek() bool { return e.host == hostDeepSeek }

// reasoningOutsideCompletion reports whether the endpoint leaves reasoning tokens out of
// completion_tokens whatever the model.
func (e endpoint) reasoningOutsideCompletion() bool { return e.host == hostVercel }

// OriginOf is the origin exo's provider of kind stamps on the reasoning a model at baseURL
// gives (see Reasoning.Origin), for reasoning exo records from traffic it did not make itself
// (an external agent's calls passed through exo's endpoint).
func OriginOf(kind, baseURL, model string) string {
	host := ""
	switch kind {
	case KindAnthropic:
		host = "api.anthropic.com"
	case KindOpenAI:
		host = "api.openai.com"
	case KindGemini:
		host = geminiHost
	}
	return newEndpoint(baseURL, host, model).origin
}
