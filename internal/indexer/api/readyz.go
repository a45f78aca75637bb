package api

import (
	"errors"
	"net/http"

	"github.com/rollgate/rollgate/internal/apierr"
)

// readyz is readiness: the store answers and, when this process ingests, the pipeline is
// current (Config.Ready). Unready is a 503 whose message says why and whose details[0] is the
// machine reason. /healthz stays liveness: the process serves.
func (s *server) readyz(r *http.Request) (any, error) {
	h, err := s.store.IndexedHeight(r.Context())
	if err != nil {
		return nil, &apierr.Error{Code: apierr.Unavailable, Message: "not ready: store unavailable", Details: []string{"STORE_UNAVAILABLE"}, Cause: err}
	}
	if s.cfg.Ready != nil {
		if err := s.cfg.Ready(); err != nil {
			reason := "NOT_READY"
			var rr interface{ ReadyReason() string }
			if errors.As(err, &rr) {
				reason = rr.ReadyReason()
			}
			return nil, &apierr.Error{Code: apierr.Unavailable, Message: "not ready: " + err.Error(), Details: []string{reason}, Expected: true}
		}
	}
	return map[string]any{"status": "ready", "height": h}, nil
}
