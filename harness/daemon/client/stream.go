package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"exo/harness/api"
	"exo/harness/daemon/wire"
)

// frames reads NDJSON frames from a stream body.
type frames struct {
	sc *bufio.Scanner
}

func newFrames(r io.Reader) *frames {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), wire.MaxFrame)
	return &frames{sc: sc}
}

// next decodes the next frame; io.EOF at the end of the stream.
func (f *frames) next() (wire.Frame, error) {
	var fr wire.Frame
	if !f.sc.Scan() {
		if err := f.sc.Err(); err != nil {
			return fr, err
		}
		return fr, io.EOF
	}
	if err := json.Unmarshal(f.sc.Bytes(), &fr); err != nil {
		return fr, fmt.Errorf("exo daemon: bad stream frame: %w", err)
	}
	return fr, nil
}

// Watch opens a watch (a tail when req.Session is set).
func (c *Client) Watch(ctx context.Context, req api.WatchRequest) (*api.Watcher, error) {
	wctx, cancel := context.WithCancel(ctx)
	var resp io.ReadCloser
	var err error
	if req.Session != "" {
		t := api.TailRequest{Session: req.Session, After: req.After, Branch: req.Branch, Client: req.Client}
		if req.Attach != "" {
			t.Attach = "1"
		}
		resp, err = openBody(wctx, c, api.MethodTail, t)
	} else {
		resp, err = openBody(wctx, c, api.MethodWatch, api.WatchQuery{Attach: req.Attach, Client: req.Client})
	}
	if err != nil {
		cancel()
		return nil, err
	}
	fr := newFrames(resp)
	first, err := fr.next()
	if err != nil || first.Watch == "" {
		resp.Close()
		cancel()
		if err == nil {
			err = errors.New("exo daemon: the watch did not start")
		}
		return nil, err
	}
	out := make(chan api.Notice, 256)
	var failed errOnce
	go func() {
		defer close(out)
		defer resp.Close()
		for {
			f, err := fr.next()
			if err != nil {
				if wctx.Err() == nil && !errors.Is(err, io.EOF) {
					failed.set(unreachable(c.socket, err))
				} else if wctx.Err() == nil {
					failed.set(fmt.Errorf("%w: the daemon closed the stream", api.ErrUnavailable))
				}
				return
			}
			if f.Error != nil {
				failed.set(f.Error)
				return
			}
			select {
			case out <- wire.Notice(f):
			case <-wctx.Done():
				return
			}
		}
	}()
	return api.NewWatcher(first.Watch, out, failed.get, cancel), nil
}

// Exec runs a command and copies its output to out as it streams.
func (c *Client) Exec(ctx context.Context, req api.ExecRequest, out io.Writer) (api.ExecResult, error) {
	resp, err := openBody(ctx, c, api.MethodExec, req)
	if err != nil {
		return api.ExecResult{}, err
	}
	defer resp.Close()
	fr := newFrames(resp)
	for {
		f, err := fr.next()
		switch {
		case err != nil && ctx.Err() != nil:
			return api.ExecResult{}, ctx.Err()
		case err != nil:
			return api.ExecResult{}, unreachable(c.socket, err)
		case f.Error != nil:
			return api.ExecResult{}, f.Error
		case f.Result != nil:
			return *f.Result, nil
		case f.Output != "" && out != nil:
			if _, err := io.WriteString(out, f.Output); err != nil {
				return api.ExecResult{}, fmt.Errorf("write output: %w", err)
			}
		}
	}
}

// Artifact opens an artifact.
func (c *Client) Artifact(ctx context.Context, id string) (io.ReadCloser, error) {
	return openBody(ctx, c, api.MethodArtifact, api.IDRef{ID: id})
}

// TaskOutput writes a task's output so far.
func (c *Client) TaskOutput(ctx context.Context, taskID string, w io.Writer) error {
	body, err := openBody(ctx, c, api.MethodTaskOutput, api.IDRef{ID: taskID})
	if err != nil {
		return err
	}
	defer body.Close()
	_, err = io.Copy(w, body)
	return err
}

// openBody calls a method whose answer is read as it comes (a stream or bytes).
func openBody[Req, Resp any](ctx context.Context, c *Client, m api.Method[Req, Resp], req Req) (io.ReadCloser, error) {
	resp, _, err := open(ctx, c, m, req, true)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}
