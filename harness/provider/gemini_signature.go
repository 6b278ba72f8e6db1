package provider

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
)

// Gemini validates thought signatures on the function calls of the current turn (Gemini 3
// answers 400 without them): the first functionCall part of each model step since the user's
// last text must carry the signature it came with. History the model did not make itself (turns
// of another model or provider, an older session recorded without signatures, a signature
// from another endpoint, which exo never sends there) has none; for those the API documents a
// dummy signature that skips the check, the one Google's own Gemini CLI sends.

// GeminiDummySignature is the thoughtSignature the Gemini API documents for function calls it
// did not sign, sent as this exact string.
const GeminiDummySignature = "skip_thought_signature_validator"

// dummySignature is the dummy as the part's bytes field holds it (the string read as base64url,
// which the API accepts); json encodes it with the standard alphabet as dummyStd, which
// geminiBody writes back as the documented string.
var dummySignature, _ = base64.URLEncoding.DecodeString(GeminiDummySignature)

// dummyStd is dummySignature as encoding/json writes it.
var dummyStd = base64.StdEncoding.EncodeToString(dummySignature)

// signCurrentTurn gives the first function call of each model step of the current turn (the
// contents after the last user content holding text and no function response) the dummy
// signature when it has none.
func signCurrentTurn(contents []*gContent) {
	start := -1
	for i := len(contents) - 1; i >= 0 && start < 0; i-- {
		if c := contents[i]; c.Role == "user" && hasText(c) && !hasResponse(c) {
			start = i
		}
	}
	if start < 0 {
		return
	}
	for _, c := range contents[start+1:] {
		if c.Role != "model" {
			continue
		}
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				if len(p.ThoughtSignature) == 0 {
					p.ThoughtSignature = dummySignature
				}
				break
			}
		}
	}
}

// hasText reports whether a content holds a text part.
func hasText(c *gContent) bool {
	for _, p := range c.Parts {
		if p.Text != "" && !p.Thought {
			return true
		}
	}
	return false
}

// hasResponse reports whether a content holds a function response.
func hasResponse(c *gContent) bool {
	for _, p := range c.Parts {
		if p.FunctionResponse != nil {
			return true
		}
	}
	return false
}

// geminiBody encodes a request body, the dummy signatures written as the documented string.
func geminiBody(req geminiRequest) ([]byte, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	return bytes.ReplaceAll(b, []byte(`"thoughtSignature":"`+dummyStd+`"`), []byte(`"thoughtSignature":"`+GeminiDummySignature+`"`)), nil
}
