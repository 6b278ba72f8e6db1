package extexec

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/tidwall/gjson"
)

// An agent resends its whole request on every model call: claude-agent-acp's carry Claude Code's
// system prompt and tool list (85 KiB before the conversation grows), Claude Code's and Codex's
// less but growing with the conversation. The endpoint reads what it needs of a request (its
// model, how many messages, the final message) while the agent waits, so it reads the body in
// one pass instead of decoding it: it checks the body is JSON, splits the top level and the
// message list with gjson, and decodes only the message it places the call by. (Decoding the
// whole body with encoding/json took about 1.4 ms for 85 KiB, and it was done three times.)

// maxNesting bounds how deeply a request's arrays and objects nest, as encoding/json does:
// gjson's validator recurses once per level, so a body of 64 MiB of brackets would otherwise
// exhaust the daemon's stack.
const maxNesting = 10000

// callBody is a model request's top level: each key's value (the last of a key given twice, as
// encoding/json reads it) and how many times "model" is given.
type callBody struct {
	fields map[string]gjson.Result
	models int
}

// readBody checks that body is a JSON object and splits its top level; the error is
// encoding/json's account of what is wrong with it. A body of JSON null is an empty request, as
// encoding/json reads it.
func readBody(body []byte) (callBody, error) {
	d := callBody{fields: map[string]gjson.Result{}}
	if !nestingWithin(body, maxNesting) || !gjson.ValidBytes(body) {
		return d, decodeError(body)
	}
	top := gjson.Parse(string(body))
	if !top.IsObject() {
		return d, decodeError(body)
	}
	top.ForEach(func(k, v gjson.Result) bool {
		if k.Str == "model" {
			d.models++
		}
		d.fields[k.Str] = v
		return true
	})
	return d, nil
}

// decodeError is encoding/json's error for a body that is not a JSON object (nil for null).
func decodeError(body []byte) error {
	var head map[string]json.RawMessage
	if err := json.Unmarshal(body, &head); err != nil {
		return err
	}
	if head != nil { // not expected: what encoding/json reads as an object, gjson refused
		return errors.New("exo could not read it")
	}
	return nil
}

// nestingWithin reports whether JSON text nests arrays and objects at most max deep (brackets in
// strings do not count). Strings, most of a request, are skipped to their closing quote.
func nestingWithin(b []byte, max int) bool {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			end := stringEnd(b, i+1)
			if end < 0 {
				return true // unterminated: not JSON, which the validator says
			}
			i = end
		case '[', '{':
			if depth++; depth > max {
				return false
			}
		case ']', '}':
			depth--
		}
	}
	return true
}

// stringEnd returns the index of the quote that closes a JSON string whose text starts at i, or
// -1.
func stringEnd(b []byte, i int) int {
	for {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return -1
		}
		q += i
		backslashes := 0
		for j := q - 1; j >= i && b[j] == '\\'; j-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return q
		}
		i = q + 1
	}
}

// model is the model the request names ("" when it names none or not as a string).
func (d callBody) model() string {
	if v := d.fields["model"]; v.Type == gjson.String {
		return v.Str
	}
	return ""
}

// items returns the elements of a top-level array (none when key is missing or no array).
func (d callBody) items(key string) []gjson.Result {
	v := d.fields[key]
	if !v.IsArray() {
		return nil
	}
	var out []gjson.Result
	v.ForEach(func(_, e gjson.Result) bool {
		out = append(out, e)
		return true
	})
	return out
}

// count is the length of a top-level array (0 when key is missing or no array).
func (d callBody) count(key string) int {
	v := d.fields[key]
	if !v.IsArray() {
		return 0
	}
	n := 0
	v.ForEach(func(_, _ gjson.Result) bool {
		n++
		return true
	})
	return n
}

// int is a top-level integer (0 when key is missing or not an integer, as encoding/json leaves
// an int field).
func (d callBody) int(key string) int {
	v := d.fields[key]
	if v.Type != gjson.Number {
		return 0
	}
	n, err := strconv.Atoi(v.Raw)
	if err != nil {
		return 0
	}
	return n
}

// string is a top-level string ("" when key is missing or not a string).
func (d callBody) string(key string) string {
	if v := d.fields[key]; v.Type == gjson.String {
		return v.Str
	}
	return ""
}

// raw is a top-level value as JSON text (nil when key is missing).
func (d callBody) raw(key string) json.RawMessage {
	v, ok := d.fields[key]
	if !ok || v.Raw == "" {
		return nil
	}
	return json.RawMessage(v.Raw)
}
