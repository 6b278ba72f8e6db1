// Package provider talks to language models for exo's default executor.
//
// Every model sits behind one interface, [Provider], whose Stream method
// sends a [Request] and delivers [Delta] values to a callback as they arrive
// before returning the completed [Response]. The implementations are
// [NewOpenAI] (Responses API), [NewOpenAICompatible] (Chat Completions:
// OpenAI itself, Ollama, llama.cpp server, vLLM, LM Studio), [NewAnthropic]
// (Messages API with prompt caching on the stable prefix), [NewGemini] (the Gemini
// API's streamGenerateContent, with thought parts and signatures) and [NewScripted],
// which plays turns from a file for offline demos and tests.
//
// Requests go through the official SDKs (their parameter types, auth,
// base URLs and HTTP error types); the SSE body is read by this package,
// each event decoded into a small struct of the fields exo uses. The SDKs'
// reflective stream decoders cost 12-47µs per event on a 2-core EPYC; these
// cost about 3µs, the same at the 10,000th delta as at the 160,000th, and a
// delta is handed on without copying what came before.
//
// The SDKs' own retries are switched off: [Reliable] wraps any provider with
// exo's retry policy (exponential backoff with jitter that honours
// Retry-After) and a per-provider circuit breaker, both with injectable time
// so that tests are exact. Failures are [*Error] values that match the
// sentinel errors ([ErrRateLimited], [ErrStreamCut], ...) with errors.Is and
// read as a sentence the user can act on.
//
// A model's reasoning is kept as each API sent it ([Reasoning]: Anthropic
// thinking blocks with their signatures, Responses reasoning items with
// their encrypted content, reasoning_content, reasoning_details) and sent
// back to the API that produced it through [Message.Reasoning]. Error
// answers and in-stream errors of every shape become an [*Error] with the
// provider's own type, message and requested wait; [Usage] counts cache
// reads and writes, reasoning tokens and the provider's own cost.
//
// The package also holds the model catalog ([Lookup], [ModelInfo.Cost]),
// token counting ([CountTokens]) and model discovery ([ListModels],
// [ListOllamaModels]).
// It imports nothing from exo's store, sandbox or UI packages.
package provider
