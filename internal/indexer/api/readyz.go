package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
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
	h, err := CheckReady(r.Context(), s.store, s.cfg.MaxReplicaLag, s.cfg.Ready)
	if err != nil {
		return nil, err
	}
	return map[string]any{"status": "ready", "height": h}, nil
}

// CheckReady is one chain's readiness, as its /readyz and a fleet's /readyz and /chains
// report it: the store st answers (its indexed height is returned), a hot standby under it
// replays within maxReplicaLag (0: not checked) and ready, when set, says the pipeline is
// current. Unready is an *apierr.Error 503 whose details[0] is the machine reason (Reason).
func CheckReady(ctx context.Context, st store.Reader, maxReplicaLag time.Duration, ready func() error) (int64, error) {
	h, err := st.IndexedHeight(ctx)
	if err != nil {
		return 0, &apierr.Error{Code: apierr.Unavailable, Message: "not ready: store unavailable", Details: []string{"STORE_UNAVAILABLE"}, Cause: err}
	}
	if rs, ok := st.(replicaStater); ok && maxReplicaLag > 0 {
		state, err := rs.ReplicaState(ctx)
		if err != nil {
			return 0, &apierr.Error{Code: apierr.Unavailable, Message: "not ready: store unavailable", Details: []string{"STORE_UNAVAILABLE"}, Cause: err}
		}
		if state.Standby && state.Lag > maxReplicaLag {
			paused := ""
			if state.Paused {
				paused = " (WAL replay is paused)"
			}
			msg := fmt.Sprintf("not ready: the store's standby replays %v behind its primary, more than %v%s",
				state.Lag.Round(time.Millisecond), maxReplicaLag, paused)
			return 0, &apierr.Error{Code: apierr.Unavailable, Message: msg, Details: []string{"REPLICA_LAG"}, Expected: true}
		}
	}
	if ready != nil {
		if err := ready(); err != nil {
			return 0, notReady(err)
		}
	}
	return h, nil
}

// Reason is the machine reason and the message of an unready CheckReady (NOT_READY and the
// error's text for any other error).
func Reason(err error) (reason, message string) {
	var ae *apierr.Error
	if errors.As(err, &ae) && len(ae.Details) > 0 {
		return ae.Details[0], strings.TrimPrefix(ae.Message, "not ready: ")
	}
	return "NOT_READY", err.Error()
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
