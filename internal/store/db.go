package store

// The seam to the SQL layer (internal/sqldb) as this package's queries call it, and what every
// query shares. The rest of DB lives beside it: write.go
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

// rows is what both drivers' result sets have in common.
type rows = sqldb.Rows

// rawCols receives columns as the driver's bytes, without a copy, for the scans that copy
// what they keep themselves (scanTxs, scanBlocks); see sqldb.RawCols.
type rawCols = sqldb.RawCols

func newRawCols(r rows, n int) *rawCols { return sqldb.NewRawCols(r, n) }

// conn runs queries written with '?' placeholders; the PostgreSQL side rewrites them.
type conn interface {
	query(ctx context.Context, q string, args ...any) (rows, error)
}

// wtx is one write transaction of a backend.
type wtx interface {
	conn
	exec(ctx context.Context, q string, args ...any) error
	// insertRows bulk-inserts: COPY on PostgreSQL, a prepared INSERT on SQLite.
	insertRows(ctx context.Context, table string, cols []string, rows [][]any) error
	commit(ctx context.Context) error
	rollback(ctx context.Context) error
}

// backend is the SQL layer's database (sqldb.Backend) as the queries of this package call it.
type backend struct {
	sqldb.Backend
	rd conn // the reader, wrapped once: reads are the hot path
}

func newBackend(b sqldb.Backend) *backend { return &backend{Backend: b, rd: sqlConn{b.Reader()}} }

func (b *backend) reader() conn { return b.rd }

func (b *backend) begin(ctx context.Context) (wtx, error) {
	tx, err := b.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return sqlTx{tx}, nil
}

// forUpdate is appended to the state read that starts every write transaction.
func (b *backend) forUpdate() string { return b.ForUpdate() }

// contains is a condition that text column col contains the next argument.
func (b *backend) contains(col string) string { return b.Contains(col) }

// reset drops the pooled connections (after the server ended the sessions; see sqldb.ConnLost).
func (b *backend) reset()       { b.Reset() }
func (b *backend) close() error { return b.Close() }

// inTx runs f in a write transaction (sqldb.InTx: begin, rollback unless committed, reset of a
// lost connection); the after func f returns, when not nil, runs once the transaction
// committed (the caches and waiters a write moves on).
func (b *backend) inTx(ctx context.Context, f func(tx wtx) (after func(), err error)) error {
	var after func()
	err := sqldb.InTx(ctx, b.Backend, func(tx sqldb.Tx) (err error) {
		after, err = f(sqlTx{tx})
		return err
	})
	if err == nil && after != nil {
		after()
	}
	return err
}

type sqlConn struct{ c sqldb.Conn }

func (c sqlConn) query(ctx context.Context, q string, args ...any) (rows, error) {
	return c.c.Query(ctx, q, args...)
}

type sqlTx struct{ t sqldb.Tx }

func (t sqlTx) query(ctx context.Context, q string, args ...any) (rows, error) {
	return t.t.Query(ctx, q, args...)
}

func (t sqlTx) exec(ctx context.Context, q string, args ...any) error {
	return t.t.Exec(ctx, q, args...)
}

func (t sqlTx) insertRows(ctx context.Context, table string, cols []string, rs [][]any) error {
	return t.t.InsertRows(ctx, table, cols, rs)
}

func (t sqlTx) commit(ctx context.Context) error   { return t.t.Commit(ctx) }
func (t sqlTx) rollback(ctx context.Context) error { return t.t.Rollback(ctx) }

// DB implements Store over a backend. Writes are serialised in-process (and by the database:
// SQLite's single writer connection with BEGIN IMMEDIATE, PostgreSQL's row lock on
// indexed_height), reads run on a pool.
type DB struct {
	be  *backend
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
	d := &DB{be: newBackend(be), log: log}
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
	return d.be.close()
}

func queryRow(ctx context.Context, c conn, q string, args []any, dest ...any) error {
	r, err := c.query(ctx, q, args...)
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

func readState(ctx context.Context, c conn, suffix string) (state, error) {
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
	s, err := d.readerState(ctx, d.be.reader())
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
		d.be.reset()
	}
}
