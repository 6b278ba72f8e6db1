package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"

	"exo/harness"
	"exo/harness/api"
)

// maxFrame bounds one stream line (a backlog chunk of big events).
const maxFrame = 256 << 20

// frames reads NDJSON frames from a stream body.
type frames struct {
	sc *bufio.Scanner
}

func newFrames(r io.Reader) *frames {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxFrame)
	return &frames{sc: sc}
}

// next decodes the next frame; io.EOF at the end of the stream.
func (f *frames) next() (frame, error) {
	var fr frame
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
	q := url.Values{}
	if req.Client != "" {
		q.Set("client", req.Client)
	}
	path := "/v1/watch"
	if req.Session != "" {
		path = "/v1/sessions/" + esc(req.Session) + "/events"
		q.Set("after", u64(req.After))
		if req.Branch != "" {
			q.Set("branch", req.Branch)
		}
		if req.Attach != "" {
			q.Set("attach", "1")
		}
	} else if req.Attach != "" {
		q.Set("attach", req.Attach)
	}
	wctx, cancel := context.WithCancel(ctx)
	resp, err := c.do(wctx, "GET", path+"?"+q.Encode(), nil)
	if err != nil {
		cancel()
		return nil, err
	}
	fr := newFrames(resp.Body)
	first, err := fr.next()
	if err != nil || first.Watch == "" {
		resp.Body.Close()
		cancel()
		if err == nil {
			err = errors.New("exo daemon: the watch did not start")
		}
		return nil, err
	}
	out := make(chan harness.Notice, 256)
	var failed errOnce
	go func() {
		defer close(out)
		defer resp.Body.Close()
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
			case out <- f.notice():
			case <-wctx.Done():
				return
			}
		}
	}()
	return api.NewWatcher(first.Watch, out, failed.get, cancel), nil
}

// Exec runs a command and copies its output to out as it streams.
func (c *Client) Exec(ctx context.Context, req api.ExecRequest, out io.Writer) (api.ExecResult, error) {
	resp, err := c.do(ctx, "POST", "/v1/sessions/"+esc(req.Session)+"/exec", req)
	if err != nil {
		return api.ExecResult{}, err
	}
	defer resp.Body.Close()
	fr := newFrames(resp.Body)
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
