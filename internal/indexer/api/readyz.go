package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/store"
)

// replicaStater is the store's view of its own replication (store.DB on PostgreSQL).
type replicaStater interface {
	ReplicaState(ctx context.Context) (store.ReplicaState, error)
}

// readyz is readiness: the store answers, a hot standby under it replays within
// Config.MaxReplicaLag and, when this process ingests, the pipeline is current (Config.Ready).
// Unready is a 503 whose message says why and whose details[0] is the machine reason.
// /healthz stays liveness: the process serves.
func (s *server) readyz(r *http.Request) (any, error) {
	h, err := s.store.IndexedHeight(r.Context())
	if err != nil {
		return nil, &apierr.Error{Code: apierr.Unavailable, Message: "not ready: store unavailable", Details: []string{"STORE_UNAVAILABLE"}, Cause: err}
	}
	if rs, ok := s.store.(replicaStater); ok && s.cfg.MaxReplicaLag > 0 {
		st, err := rs.ReplicaState(r.Context())
		if err != nil {
			return nil, &apierr.Error{Code: apierr.Unavailable, Message: "not ready: store unavailable", Details: []string{"STORE_UNAVAILABLE"}, Cause: err}
		}
		if st.Standby && st.Lag > s.cfg.MaxReplicaLag {
			paused := ""
			if st.Paused {
				paused = " (WAL replay is paused)"
			}
			msg := fmt.Sprintf("not ready: the store's standby replays %v behind its primary, more than %v%s",
				st.Lag.Round(time.Millisecond), s.cfg.MaxReplicaLag, paused)
			return nil, &apierr.Error{Code: apierr.Unavailable, Message: msg, Details: []string{"REPLICA_LAG"}, Expected: true}
		}
	}
	if s.cfg.Ready != nil {
		if err := s.cfg.Ready(); err != nil {
			return nil, notReady(err)
		}
	}
	return map[string]any{"status": "ready", "height": h}, nil
}

// notReady is the 503 of a pipeline that is not current: the message says why and details[0]
// is the machine reason (an error with a ReadyReason() string method gives it).
func notReady(err error) error {
	reason := "NOT_READY"
	var rr interface{ ReadyReason() string }
	if errors.As(err, &rr) {
		reason = rr.ReadyReason()
	}
	return &apierr.Error{Code: apierr.Unavailable, Message: "not ready: " + err.Error(), Details: []string{reason}, Expected: true}
}

// NewIngestOnly is the HTTP server of a process that ingests without serving the API
// (`rollgate indexer --mode ingest`): liveness at /healthz, the pipeline's readiness (ready)
// at /readyz and reg at /metrics, through the same HTTP layer as the API, so errors, 404s and
// request metrics take the API's shape. It reads no store: in this mode the API runs elsewhere.
func NewIngestOnly(ready func() error, logger *slog.Logger, reg *prometheus.Registry) http.Handler {
	return httpapi.New(httpapi.Options{Namespace: "rollgate_indexer_api", Log: logger, Registry: reg, NotFound: notFound}, []httpapi.Route{
		{Pattern: "GET /healthz", NoStore: true, Handler: func(*http.Request) (any, error) {
			return map[string]string{"status": "ok"}, nil
		}},
		{Pattern: "GET /readyz", NoStore: true, Handler: func(*http.Request) (any, error) {
			if err := ready(); err != nil {
				return nil, notReady(err)
			}
			return map[string]string{"status": "ready"}, nil
		}},
	})
}
