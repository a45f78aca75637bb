package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/rollgate/rollgate/internal/apierr"
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
