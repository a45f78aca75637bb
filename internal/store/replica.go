package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// ReplicaState is what the server under a store says about its replication, so an API replica
// on a PostgreSQL hot standby can tell how far behind its primary it serves.
type ReplicaState struct {
	// Standby is true on a PostgreSQL server in recovery (a streaming hot standby); the other
	// fields are meaningful only then. SQLite and a PostgreSQL primary report false.
	Standby bool
	// Paused is true while WAL replay is paused (pg_wal_replay_pause()).
	Paused bool
	// Lag is how old the last replayed transaction is while WAL received from the primary
	// waits to be replayed; 0 when everything received is replayed. A standby cut off from its
	// primary receives nothing, so it reports 0 too: it cannot know what it misses.
	Lag time.Duration
}

// replicaStateSQL reads the standby's replay position. now() minus the last replayed commit's
// time is the usual lag figure, but it grows while the primary is idle, so it counts only
// while received WAL is still unreplayed. Without streaming (no WAL received since the standby
// started: pg_last_wal_receive_lsn() is NULL) nothing is known to be missing: lag 0.
const replicaStateSQL = `SELECT pg_is_in_recovery(),
  CASE WHEN pg_is_in_recovery() THEN pg_is_wal_replay_paused() ELSE false END,
  CASE WHEN pg_is_in_recovery()
        AND pg_last_wal_receive_lsn() > pg_last_wal_replay_lsn()
        AND pg_last_xact_replay_timestamp() IS NOT NULL
       THEN GREATEST(0, EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::bigint
       ELSE 0 END`

// ReplicaState reports the replication state of the store's server (see ReplicaState).
func (d *DB) ReplicaState(ctx context.Context) (ReplicaState, error) {
	if d.be.Dialect() != sqldb.Postgres {
		return ReplicaState{}, nil
	}
	return readRetrying(ctx, d, func() (ReplicaState, error) {
		var s ReplicaState
		r, err := d.be.Reader().Query(ctx, replicaStateSQL)
		if err != nil {
			return s, fmt.Errorf("read replica state: %w", err)
		}
		defer r.Close()
		var lagMs int64
		if r.Next() {
			if err := r.Scan(&s.Standby, &s.Paused, &lagMs); err != nil {
				return s, fmt.Errorf("read replica state: %w", err)
			}
		}
		if err := r.Err(); err != nil {
			return s, fmt.Errorf("read replica state: %w", err)
		}
		s.Lag = time.Duration(lagMs) * time.Millisecond
		return s, nil
	})
}

// Unavailable reports whether err means the database is away (a lost or refused connection,
// a server shutting down or in recovery start-up), as opposed to a fault of the query: the API
// answers those with 503 and Retry-After instead of 500. A deadline or cancellation is not
// (context.DeadlineExceeded passes for a net.Error): the API answers those 504 and 499.
func Unavailable(err error) bool {
	if err == nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	return sqldb.ConnLost(err)
}
