package daemon

import (
	"context"
	"net/http"

	"exo/harness"
	"exo/harness/api"
)

// lifecycleRoutes maps archiving, removing and collecting.
func (s *Server) lifecycleRoutes(h func(string, func(http.ResponseWriter, *http.Request) error)) {
	h("PUT /v1/sessions/{ref}/archived", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Archived bool `json:"archived"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		return reply(w)(s.svc.ArchiveSession(r.Context(), r.PathValue("ref"), body.Archived))
	})
	h("DELETE /v1/sessions/{ref}", func(w http.ResponseWriter, r *http.Request) error {
		return reply(w)(s.svc.RemoveSession(r.Context(), r.PathValue("ref")))
	})
	h("POST /v1/gc", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			DryRun bool `json:"dry_run"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		return reply(w)(s.svc.GC(r.Context(), body.DryRun))
	})
	h("POST /v1/backup", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Path string `json:"path"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		return reply(w)(s.svc.Backup(r.Context(), body.Path))
	})
}

// ArchiveSession hides a session from lists (or brings it back).
func (c *Client) ArchiveSession(ctx context.Context, ref string, archived bool) (*harness.Session, error) {
	var out harness.Session
	return &out, c.call(ctx, "PUT", "/v1/sessions/"+esc(ref)+"/archived", map[string]bool{"archived": archived}, &out)
}

// RemoveSession deletes a session.
func (c *Client) RemoveSession(ctx context.Context, ref string) (api.RemoveResult, error) {
	var out api.RemoveResult
	return out, c.call(ctx, "DELETE", "/v1/sessions/"+esc(ref), nil, &out)
}

// GC lists or removes the folders no live session uses.
func (c *Client) GC(ctx context.Context, dryRun bool) (harness.GCReport, error) {
	var out harness.GCReport
	return out, c.call(ctx, "POST", "/v1/gc", map[string]bool{"dry_run": dryRun}, &out)
}

// Backup writes a consistent copy of the event store.
func (c *Client) Backup(ctx context.Context, path string) (api.BackupResult, error) {
	var out api.BackupResult
	return out, c.call(ctx, "POST", "/v1/backup", map[string]string{"path": path}, &out)
}
