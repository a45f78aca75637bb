package store

// DB and what every query shares; the queries run on the SQL layer's types (internal/sqldb:
// Backend, Conn, Tx, Rows) as they are. The rest of DB lives beside it: write.go
// (WriteBlocks), dict.go (the dictionaries), blocks.go (block reads), txs.go and txplans.go
// (tx reads and their query plans).

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// inTx runs f in a write transaction of be (sqldb.InTx: begin, rollback unless committed,
// reset of a lost connection); the after func f returns, when not nil, runs once the
// transaction committed (the caches and waiters a write moves on).
func inTx(ctx context.Context, be sqldb.Backend, f func(tx sqldb.Tx) (after func(), err error)) error {
	var after func()
	err := sqldb.InTx(ctx, be, func(tx sqldb.Tx) (err error) {
		after, err = f(tx)
		return err
	})
	if err == nil && after != nil {
		after()
	}
	return err
}

// DB implements Store over a backend. Writes are serialised in-process (and by the database:
// SQLite's single writer connection with BEGIN IMMEDIATE, PostgreSQL's row lock on
// indexed_height), reads run on a pool.
type DB struct {
	be  sqldb.Backend
	log *slog.Logger

	writeMu sync.Mutex
	// internalMu serialises WriteInternalTxs apart from WriteBlocks (see WriteInternalTxs).
	internalMu sync.Mutex
	// written wakes Written's waiters at each WriteBlocks commit.
	written writeSignal

	// stats refreshes planner statistics after bulk writes (PostgreSQL only; nil on SQLite).
	stats *statsKeeper
	// extRows counts the NFT, EVM and rich-list rows this process wrote (under writeMu), which
	// the keeper adds to the blocks and txs stored.
	extRows int64
	// state caches indexed_height for the readers (see stateTTL).
	state stateCache
	// lookups caches the dictionary and height lookups of filtered lists (see lookupCache).
	lookups lookupCache
	// ranks keeps rank buckets the readers loaded, by indexed height (see rankReads).
	ranks rankReads
	// retain is the retention setting (prune.go): 0 keeps every height.
	retain retention
	// epoch is the chain_state epoch this DB last saw (-1: none yet), so a reader learns of a
	// re-index by another process and forgets what it cached of the dropped chain.
	epoch atomic.Int64
}

var _ Store = (*DB)(nil)

func newDB(be sqldb.Backend, log *slog.Logger) *DB {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	d := &DB{be: be, log: log}
	d.epoch.Store(-1)
	if pg, ok := be.(*sqldb.PG); ok { // a writer's: a read-only backend is wrapped
		d.stats = newStatsKeeper(pgAnalyzer{pg}, log)
	}
	return d
}

// Close waits for a running statistics refresh (cancelling it) and releases the connections.
func (d *DB) Close() error {
	if d.stats != nil {
		d.stats.stop()
	}
	return d.be.Close()
}

func queryRow(ctx context.Context, c sqldb.Conn, q string, args []any, dest ...any) error {
	r, err := c.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer r.Close()
	if !r.Next() {
		if err := r.Err(); err != nil {
			return err
		}
		return ErrNotFound
	}
	if err := r.Scan(dest...); err != nil {
		return err
	}
	return r.Err()
}

type state struct {
	height, firstHeight, lastSequence int64
}

func readState(ctx context.Context, c sqldb.Conn, suffix string) (state, error) {
	var s state
	err := queryRow(ctx, c, "SELECT height, first_height, last_sequence FROM indexed_height WHERE id = 1"+suffix, nil,
		&s.height, &s.firstHeight, &s.lastSequence)
	if err != nil {
		return s, fmt.Errorf("read indexed_height: %w", err)
	}
	return s, nil
}

// IndexedHeight returns the last height written, or 0 for an empty store.
func (d *DB) IndexedHeight(ctx context.Context) (int64, error) {
	return readRetrying(ctx, d, func() (int64, error) { return d.indexedHeight(ctx) })
}

// IndexedHeightNow implements Reader: the state cache IndexedHeight reads through.
func (d *DB) IndexedHeightNow() (int64, bool) {
	s, ok := d.state.get(time.Now())
	return s.height, ok
}

func (d *DB) indexedHeight(ctx context.Context) (int64, error) {
	s, err := d.readerState(ctx, d.be.Reader())
	return s.height, err
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func placeholders(n int) string { return sqldb.Placeholders(n) }

func limitOf(p Page) int {
	if p.Limit <= 0 {
		return DefaultPageLimit
	}
	return p.Limit
}

func dir(desc bool) string {
	if desc {
		return "DESC"
	}
	return "ASC"
}

// satAdd adds non-negative numbers, saturating instead of wrapping negative (a negative
// LIMIT means "no limit" to SQLite and an error to PostgreSQL).
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// readRetrying runs a read again, up to readAttempts times, when the server ended its session
// while the read ran (see sqldb.ConnLost); reads are idempotent. A dead pooled connection found when a
// query starts is already handled by the backend's reader; this covers a session ended in the
// middle of a result or between the queries of one read.
func readRetrying[T any](ctx context.Context, d *DB, read func() (T, error)) (T, error) {
	for attempt := 1; ; attempt++ {
		v, err := read()
		if err == nil || attempt >= sqldb.ReadAttempts || ctx.Err() != nil || !sqldb.ConnLost(err) {
			return v, err
		}
		d.be.Reset()
	}
}
