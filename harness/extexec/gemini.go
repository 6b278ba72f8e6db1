package extexec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"exo/harness"
	"exo/harness/provider"
)

// WireGemini is the Gemini API's wire format (models/{model}:streamGenerateContent and
// :generateContent), spoken by the Gemini CLI.
const WireGemini = provider.KindGemini

// geminiPathPrefix is where the Gemini API's model methods live under the endpoint (the Gemini
// CLI's SDK adds the version to GOOGLE_GEMINI_BASE_URL).
const geminiPathPrefix = "/v1beta/models/"

// gemini serves POST /v1beta/models/{model}:{method} (the Gemini API): streamGenerateContent
// and generateContent are recorded, passed to a registered Gemini model with the sealed key in
// place of the agent's token, and their answers recorded; countTokens passes through
// unrecorded. The model named in the path is replaced by the registered one.
func (e *Endpoint) gemini(w http.ResponseWriter, r *http.Request) {
	_, method, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, geminiPathPrefix), ":")
	if !ok {
		writeGeminiError(w, http.StatusNotFound, "NOT_FOUND", "exo: no such method")
		return
	}
	if !e.up.passes(WireGemini) {
		writeGeminiError(w, http.StatusBadRequest, "FAILED_PRECONDITION", fmt.Sprintf(
			"exo: the Gemini CLI reaches Gemini models only; model %s is a %s model (register one with --provider gemini)", e.up.Spec.Name, e.up.Spec.Provider))
		return
	}
	body, doc, arrived, ok := readCall(e.log.h, &e.bodies, w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	q.Del("key") // the agent's token, when it sends it in the query
	target := e.up.BaseURL + "/v1beta/models/" + url.PathEscape(e.up.Spec.ModelID) + ":" + method
	if enc := q.Encode(); enc != "" {
		target += "?" + enc
	}
	auth := func(h http.Header) {
		h.Del("X-Goog-Api-Key")
		if e.up.key != "" {
			h.Set("X-Goog-Api-Key", e.up.key)
		}
	}
	if method != "streamGenerateContent" && method != "generateContent" {
		e.passThrough(w, r, body, target, auth)
		return
	}
	c := e.log.begin(geminiShape(doc), doc.count("contents"))
	if c.refusal != "" {
		writeGeminiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", c.refusal)
		return
	}
	e.forward(w, r, c, body, arrived, target, auth, newGeminiTap(e.up.BaseURL, e.up.Spec.ModelID, time.Now(), c.thinking))
}

// passThrough forwards a call exo does not record (countTokens) through the same ReverseProxy
// as the recorded calls, and sends the answer back redacted.
func (e *Endpoint) passThrough(w http.ResponseWriter, r *http.Request, body []byte, target string, auth func(http.Header)) {
	u, err := url.Parse(target)
	if err != nil {
		writeGeminiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", err.Error())
		return
	}
	p := &httputil.ReverseProxy{
		Transport:  e.client.Transport,
		BufferPool: copyBuffers,
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.Method, pr.Out.URL, pr.Out.Host = http.MethodPost, u, ""
			pr.Out.Body = io.NopCloser(bytes.NewReader(body))
			pr.Out.ContentLength = int64(len(body))
			for _, k := range []string{"X-Api-Key", "Authorization", "Accept-Encoding", "Content-Length"} {
				pr.Out.Header.Del(k)
			}
			auth(pr.Out.Header)
		},
		ModifyResponse: func(res *http.Response) error {
			raw, err := io.ReadAll(io.LimitReader(res.Body, maxRequestBytes))
			res.Body.Close()
			if err != nil {
				return err
			}
			red := e.redactAnswer(raw)
			res.Body, res.ContentLength = io.NopCloser(bytes.NewReader(red)), int64(len(red))
			res.Header.Set("Content-Length", strconv.Itoa(len(red)))
			return nil
		},
		ErrorLog: quietLog,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			writeGeminiError(w, http.StatusBadGateway, "UNAVAILABLE", "exo: "+err.Error())
		},
	}
	p.ServeHTTP(w, r)
}

// writeGeminiError answers in the Gemini API's error shape.
func writeGeminiError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": status, "message": msg, "status": code}})
	_, _ = w.Write(b)
}

// geminiContent is one content of a Gemini request, as far as the shape needs it.
type geminiContent struct {
	Role  string `json:"role"`
	Parts []struct {
		Text             *string `json:"text"`
		Thought          bool    `json:"thought"`
		FunctionResponse *struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"functionResponse"`
		FunctionCall *struct {
			ID string `json:"id"`
		} `json:"functionCall"`
	} `json:"parts"`
}

// geminiShape reads a Gemini request: the last user content's text, or the function responses
// it carries (by id, else by name), the tools offered and the system instruction.
func geminiShape(req callBody) callShape {
	sh := callShape{maxTokens: 0}
	var tools []struct {
		FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
	}
	_ = json.Unmarshal(req.raw("tools"), &tools)
	for _, t := range tools {
		sh.tools += len(t.FunctionDeclarations)
	}
	var sys geminiContent
	if json.Unmarshal(req.raw("systemInstruction"), &sys) == nil {
		for _, p := range sys.Parts {
			if p.Text != nil {
				sh.system = clipText(*p.Text, 2048)
				break
			}
		}
	}
	contents := req.items("contents")
	if len(contents) == 0 {
		return sh
	}
	var last geminiContent
	if json.Unmarshal([]byte(contents[len(contents)-1].Raw), &last) != nil || (last.Role != "user" && last.Role != "") {
		return sh
	}
	var texts []string
	for _, p := range last.Parts {
		switch {
		case p.FunctionResponse != nil:
			sh.results = append(sh.results, firstNonEmpty(p.FunctionResponse.ID, p.FunctionResponse.Name))
		case p.Text != nil && !p.Thought:
			texts = append(texts, *p.Text)
		}
	}
	if len(sh.results) > 0 {
		sh.extraText = len(texts) > 0
		sh.prevCalls = geminiPrevCalls(contents)
		return sh
	}
	sh.userText = strings.Join(texts, "\n")
	if len(texts) > 0 {
		sh.lastText = texts[len(texts)-1]
	}
	return sh
}

// geminiPrevCalls are the ids of the function calls in the model content before the last
// content (the answer whose results the request carries), in order.
func geminiPrevCalls(contents []gjson.Result) []string {
	if len(contents) < 2 {
		return nil
	}
	var prev geminiContent
	if json.Unmarshal([]byte(contents[len(contents)-2].Raw), &prev) != nil || prev.Role != "model" {
		return nil
	}
	var ids []string
	for _, p := range prev.Parts {
		if p.FunctionCall != nil {
			ids = append(ids, p.FunctionCall.ID)
		}
	}
	return ids
}

// geminiTap folds a Gemini answer passing through the endpoint with the gemini provider's
// decoder.
type geminiTap struct {
	fold  *provider.GeminiFold
	start time.Time
	ttft  time.Duration
}

// newGeminiTap starts folding an answer of model from baseURL; thinking, when not nil, is shown
// the answer's reasoning as it is decoded (the model's own, which an agent may alter on the way).
func newGeminiTap(baseURL, model string, start time.Time, thinking func(string)) *geminiTap {
	var onDelta func(provider.Delta)
	if thinking != nil {
		onDelta = func(d provider.Delta) {
			if d.Kind == provider.DeltaReasoning {
				thinking(d.Text)
			}
		}
	}
	return &geminiTap{fold: provider.NewGeminiFold(baseURL, model, onDelta), start: start}
}

// event applies one chunk.
func (t *geminiTap) event(data []byte) {
	if t.ttft == 0 {
		t.ttft = max(time.Since(t.start), time.Nanosecond)
	}
	t.fold.Event(data)
}

// whole applies a generateContent answer (one chunk's JSON).
func (t *geminiTap) whole(raw []byte) { t.event(raw) }

// outcome says how the answer ended: failed (an error in the stream, a block, an unusual
// finishReason), complete, or cut.
func (t *geminiTap) outcome() (bool, string, string) {
	if _, e := t.fold.Result(); e != nil {
		return false, geminiErrKind(e), e.Error()
	}
	return t.fold.Complete(), "", ""
}

// answer is the answer as recorded.
func (t *geminiTap) answer(took time.Duration) Answer {
	r, _ := t.fold.Result()
	a := Answer{Text: r.Text, Reasoning: r.Reasoning, Usage: r.Usage, Stop: string(r.StopReason), TTFT: t.ttft, Took: took}
	for _, c := range r.ToolCalls {
		a.ToolCalls = append(a.ToolCalls, harness.ToolCall{ID: c.ID, Name: c.Name, Arguments: rawJSON(c.Arguments)})
	}
	return a
}

// errorEvent is a Gemini error chunk saying msg.
func (t *geminiTap) errorEvent(msg string) []byte {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": 500, "message": msg, "status": "INTERNAL"}})
	return append(append([]byte("data: "), b...), "\r\n\r\n"...)
}

// geminiErrKind maps a Gemini failure to the endpoint's failure kinds.
func geminiErrKind(e *provider.Error) string {
	switch {
	case errors.Is(e.Kind, provider.ErrRateLimited), errors.Is(e.Kind, provider.ErrQuota):
		return "rate_limited"
	case errors.Is(e.Kind, provider.ErrOverloaded):
		return "overloaded"
	case errors.Is(e.Kind, provider.ErrAuth):
		return "auth"
	case errors.Is(e.Kind, provider.ErrBadRequest), errors.Is(e.Kind, provider.ErrBlocked):
		return "bad_request"
	}
	return "server"
}
