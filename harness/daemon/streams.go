package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/daemon/wire"
)

// flushEvery is the longest a stream holds frames before sending them: deltas that come faster
// are coalesced into one frame, so a long answer costs a few frames per screen refresh, not one
// per token. The first frame after a quiet spell goes out at once.
const flushEvery = 8 * time.Millisecond

// streamWriter writes NDJSON frames to a response, buffered, coalescing consecutive frames of
// one session that carry only streamed text of one kind (answer, reasoning or sandbox output).
type streamWriter struct {
	w         http.ResponseWriter
	rc        *http.ResponseController
	buf       *bufio.Writer
	enc       *json.Encoder
	lastFlush time.Time
	// pending is the coalesced text frame not yet encoded: its session and kind, and the text.
	pending *frame
	kind    textKind
	text    strings.Builder
}

// textKind says which stream of text a frame carries.
type textKind int

const (
	notText textKind = iota
	deltaText
	reasoningText
	outputText
)

// textOf returns the kind and text of a frame that carries only streamed text of one kind.
func textOf(f frame) (textKind, string) {
	if len(f.Events) > 0 || f.Turn != nil || f.HasClients || f.Lagged || f.Result != nil || f.Error != nil || f.Watch != "" || f.Store != nil {
		return notText, ""
	}
	switch {
	case f.Delta != "" && f.Reasoning == "" && f.Output == "":
		return deltaText, f.Delta
	case f.Reasoning != "" && f.Delta == "" && f.Output == "":
		return reasoningText, f.Reasoning
	case f.Output != "" && f.Delta == "" && f.Reasoning == "":
		return outputText, f.Output
	}
	return notText, ""
}

// newStreamWriter starts an NDJSON response.
func newStreamWriter(w http.ResponseWriter) *streamWriter {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	sw := &streamWriter{w: w, rc: http.NewResponseController(w)}
	sw.buf = bufio.NewWriterSize(deadlineWriter{sw}, 64<<10)
	sw.enc = json.NewEncoder(sw.buf)
	return sw
}

// deadline gives the next write streamWriteTimeout to reach the client.
func (s *streamWriter) deadline() {
	_ = s.rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
}

// end takes the write deadline off the connection, which may serve another request.
func (s *streamWriter) end() { _ = s.rc.SetWriteDeadline(time.Time{}) }

// deadlineWriter sets the stream's write deadline before each write to the response.
type deadlineWriter struct{ s *streamWriter }

// Write writes p within streamWriteTimeout.
func (d deadlineWriter) Write(p []byte) (int, error) {
	d.s.deadline()
	return d.s.w.Write(p)
}

// add queues a frame, merging streamed text of the same session and kind.
func (s *streamWriter) add(f frame) error {
	kind, text := textOf(f)
	if kind != notText && s.pending != nil && s.pending.Session == f.Session && s.kind == kind {
		s.text.WriteString(text)
		return nil
	}
	if err := s.encodePending(); err != nil {
		return err
	}
	if kind != notText {
		s.pending, s.kind = &frame{Session: f.Session}, kind
		s.text.WriteString(text)
		return nil
	}
	return s.encode(f)
}

// encode writes one frame; a frame that cannot be encoded (an event whose stored data was
// damaged) ends the stream with an error frame naming it.
func (s *streamWriter) encode(f frame) error {
	err := s.enc.Encode(f)
	var me *json.MarshalerError
	if errors.As(err, &me) {
		err = unencodable(err, f)
		if werr := s.enc.Encode(frame{Session: f.Session, Error: remoteError(err)}); werr != nil {
			return werr
		}
	}
	return err
}

// encodePending writes the coalesced frame, if any.
func (s *streamWriter) encodePending() error {
	if s.pending == nil {
		return nil
	}
	f := *s.pending
	switch s.kind {
	case deltaText:
		f.Delta = s.text.String()
	case reasoningText:
		f.Reasoning = s.text.String()
	case outputText:
		f.Output = s.text.String()
	}
	s.pending = nil
	s.text.Reset()
	return s.encode(f)
}

// flush sends everything queued; a client that has not read it within streamWriteTimeout is
// cut (its stream ends with an error, and what it held is freed).
func (s *streamWriter) flush() error {
	if err := s.encodePending(); err != nil {
		return err
	}
	s.deadline()
	if err := s.buf.Flush(); err != nil {
		return err
	}
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
	s.lastFlush = time.Now()
	return nil
}

// pump writes notices from ch as frames until ch closes or the client leaves. Frames are sent
// at once after a quiet spell and at most every flushEvery while notices keep coming.
func pump(ctx context.Context, sw *streamWriter, ch <-chan harness.Notice, end func() error) error {
	var timer *time.Timer
	var timerC <-chan time.Time
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-timerC:
			timerC = nil
			if err := sw.flush(); err != nil {
				return nil
			}
		case n, open := <-ch:
			if !open {
				if err := end(); err != nil {
					_ = sw.add(frame{Error: remoteError(err)})
				}
				_ = sw.flush()
				return nil
			}
			if err := sw.add(wire.NoticeFrame(n)); err != nil {
				return nil
			}
			if wait := flushEvery - time.Since(sw.lastFlush); wait <= 0 {
				if err := sw.flush(); err != nil {
					return nil
				}
			} else if timerC == nil {
				if timer == nil {
					timer = time.NewTimer(wait)
				} else {
					timer.Reset(wait)
				}
				timerC = timer.C
			}
		}
	}
}

// tail streams one session's committed events after ?after=SEQ (of ?branch=B), then its live
// notices (GET /v1/sessions/{id}/events).
func (s *Server) tail(w http.ResponseWriter, r *http.Request, q api.TailRequest) error {
	req := api.WatchRequest{Session: q.Session, After: q.After, Branch: q.Branch, Client: q.Client}
	if q.Attach == "1" || q.Attach == "true" {
		req.Attach = req.Session
	}
	return s.stream(w, r, req)
}

// stream runs a watch and pumps it to the client.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, req api.WatchRequest) error {
	if req.Attach != "" {
		se, err := s.svc.Session(r.Context(), req.Attach)
		if err != nil {
			return err
		}
		req.Attach = se.ID
	}
	wt, err := s.svc.Watch(r.Context(), req)
	if err != nil {
		return err
	}
	defer wt.Close()
	s.log.Debug("watch", "id", wt.ID, "client", req.Client, "session", req.Session)
	sw := newStreamWriter(w)
	defer sw.end()
	if err := sw.add(frame{Watch: wt.ID}); err != nil {
		return nil
	}
	if err := sw.flush(); err != nil {
		return nil
	}
	return pump(r.Context(), sw, wt.C, wt.Err)
}

// exec runs a command and streams its output, then its result (POST /v1/sessions/{id}/exec).
func (s *Server) exec(w http.ResponseWriter, r *http.Request, req api.ExecRequest) error {
	sw := newStreamWriter(w)
	defer sw.end()
	out := &execOutput{sw: sw}
	res, err := s.svc.Exec(r.Context(), req, out)
	out.mu.Lock()
	defer out.mu.Unlock()
	if out.timer != nil {
		out.timer.Stop()
	}
	if err != nil {
		_ = sw.add(frame{Error: remoteError(err)})
	} else {
		_ = sw.add(frame{Result: &res})
	}
	_ = sw.flush()
	return nil
}

// execOutput streams a command's output as frames, at most every flushEvery, the rest by a
// timer so output before a pause is not held back.
type execOutput struct {
	mu    sync.Mutex
	sw    *streamWriter
	timer *time.Timer
}

// Write queues output (called from the sandbox's reader goroutine).
func (o *execOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.sw.add(frame{Output: string(p)}); err != nil {
		return 0, err
	}
	if wait := flushEvery - time.Since(o.sw.lastFlush); wait <= 0 {
		return len(p), o.sw.flush()
	} else if o.timer == nil {
		o.timer = time.AfterFunc(wait, func() {
			o.mu.Lock()
			defer o.mu.Unlock()
			o.timer = nil
			_ = o.sw.flush()
		})
	}
	return len(p), nil
}
