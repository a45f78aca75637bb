package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/rollgate/rollgate/internal/sqldb"

	"github.com/jackc/pgx/v5"
)

// The indexed height, pushed: on PostgreSQL the writer's commit sends a NOTIFY on
// IndexedChannel, so API replicas on the same database (`--mode api`, store.OpenReader) learn
// of a new block at once instead of at their next poll (HeightWatcher). The NOTIFY is sent
// inside the write transaction, so PostgreSQL delivers it only when that commits, and never
// for one rolled back. SQLite has no such channel: one process writes and serves, and its
// commits wake the watcher in-process (DB.Written).

// IndexedChannel is the PostgreSQL notification channel of indexed heights; each payload is
// the height a commit made the indexed height.
const IndexedChannel = "rollgate_indexed_height"

// ErrNoListen is ListenIndexed's answer on a store without notifications (SQLite).
var ErrNoListen = errors.New("store sends no height notifications")

// notifyIndexed queues the notification of height in the write transaction tx, on
// PostgreSQL; a no-op elsewhere. One call in the commit path, kept apart so the write path
// can move without it.
func notifyIndexed(ctx context.Context, be sqldb.Backend, tx sqldb.Tx, height int64) error {
	if pgConnConfig(be) == nil {
		return nil
	}
	if err := tx.Exec(ctx, "SELECT pg_notify(?, ?)", IndexedChannel, strconv.FormatInt(height, 10)); err != nil {
		return fmt.Errorf("notify indexed height: %w", err)
	}
	return nil
}

// pgConnConfig is the connection configuration of the PostgreSQL pool under be, or nil for
// another database: the one place that knows how backends are built.
func pgConnConfig(be sqldb.Backend) *pgx.ConnConfig {
	if pg, ok := sqldb.Unwrap(be).(*sqldb.PG); ok {
		return pg.Pool().Config().ConnConfig
	}
	return nil
}

// ListenIndexed listens on IndexedChannel on a connection of its own (not one of the pool's,
// which it would hold for hours) and calls onHeight with the indexed height once listening
// (so nothing committed before is missed) and after each notification. Before calling it,
// the cached indexed_height row is refreshed, so the readers of this DB see what the
// notification announced. It returns when ctx ends (nil) or the connection fails (the error;
// the caller falls back to polling and calls again). On SQLite it returns ErrNoListen.
func (d *DB) ListenIndexed(ctx context.Context, onHeight func(int64)) error {
	pcfg := pgConnConfig(d.be)
	if pcfg == nil {
		return ErrNoListen
	}
	cfg := pcfg.Copy()
	cfg.RuntimeParams["application_name"] = "rollgate-listen"
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	defer func() { _ = c.Close(context.Background()) }()
	if _, err := c.Exec(ctx, "LISTEN "+pgx.Identifier{IndexedChannel}.Sanitize()); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	refresh := func() error {
		// Read on the listening connection: it is at hand, and the read follows the
		// notification, so it sees the commit that sent it.
		var s state
		if err := c.QueryRow(ctx, "SELECT height, first_height, last_sequence FROM indexed_height WHERE id = 1").
			Scan(&s.height, &s.firstHeight, &s.lastSequence); err != nil {
			return fmt.Errorf("listen: read indexed_height: %w", err)
		}
		d.state.put(s, time.Now())
		onHeight(s.height)
		return nil
	}
	if err := refresh(); err != nil {
		return ctxOr(ctx, err)
	}
	for {
		if _, err := c.WaitForNotification(ctx); err != nil {
			return ctxOr(ctx, err)
		}
		// Notifications that queued meanwhile are for older heights than the read below sees.
		if err := refresh(); err != nil {
			return ctxOr(ctx, err)
		}
	}
}

// ctxOr is nil once ctx has ended (the listener was stopped), else err.
func ctxOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}
