package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"

	"golang.org/x/sync/semaphore"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// uriPath escapes what ends or changes the path of a SQLite URI filename ('?', '#', '%'), so
// a path holding them opens that file: a test's temporary directory named after the subtest
// "sqlite#01" opened "/tmp/TestTxCountsqlite", one file for every run on the machine.
var uriPath = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace

// sqlitePools opens the two pools every SQLite user of this package keeps on one file: a
// single writer connection (BEGIN IMMEDIATE, so a write transaction takes the lock up front
// instead of failing on upgrade) and a read pool that WAL lets run beside the writer. With
// o.ReadOnly there is no writer (w is nil): a reader has no business holding the writer
// connection, whose pragmas would write to the file.
func sqlitePools(ctx context.Context, path string, o Options) (w, r *sql.DB, err error) {
	base := "file:" + uriPath(path) + "?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)"
	if !o.ReadOnly {
		// temp_store(MEMORY): a multi-row INSERT keeps a statement journal (to undo itself
		// alone on a constraint failure), which otherwise goes to a temporary file.
		w, err = sql.Open("sqlite", base+"&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=temp_store(MEMORY)&_txlock=immediate")
		if err != nil {
			return nil, nil, fmt.Errorf("open sqlite %s: %w", path, err)
		}
		w.SetMaxOpenConns(1)
		if err := w.PingContext(ctx); err != nil {
			w.Close()
			return nil, nil, fmt.Errorf("open sqlite %s: %w", path, err)
		}
	}
	r, err = sql.Open("sqlite", base+"&_pragma=query_only(1)")
	if err != nil {
		if w != nil {
			w.Close()
		}
		return nil, nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	n := o.readConns()
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	if o.ReadOnly {
		if err := r.PingContext(ctx); err != nil {
			r.Close()
			return nil, nil, fmt.Errorf("open sqlite %s: %w", path, err)
		}
	}
	return w, r, nil
}

// Lite is the SQLite backend: the two pools of sqlitePools, reads through a statement cache
// and read slots.
type Lite struct {
	w, r  *sql.DB
	stmts stmtCache
}

func openSQLite(ctx context.Context, path string, o Options) (*Lite, error) {
	w, r, err := sqlitePools(ctx, path, o)
	if err != nil {
		return nil, err
	}
	b := &Lite{w: w, r: r}
	b.stmts.db = r
	b.stmts.slots = semaphore.NewWeighted(int64(o.readConns()))
	return b, nil
}

// ReadPool is the read pool (tests look at its settings).
func (b *Lite) ReadPool() *sql.DB { return b.r }

// CachedStatements is how many read statements are prepared.
func (b *Lite) CachedStatements() int {
	b.stmts.mu.Lock()
	defer b.stmts.mu.Unlock()
	return len(b.stmts.m)
}

// StmtCacheSize bounds the prepared read statements. The read queries are a small fixed set of
// texts plus IN-list variants whose length follows the request (msgs=…), so the bound only
// matters for hostile input: texts beyond it run unprepared.
const StmtCacheSize = 256

// stmtCache keeps one prepared statement per read query text. Parsing and planning a statement
// was 15 % of the API's CPU on SQLite, more than running most of them; database/sql prepares a
// cached statement once on each pooled connection and reuses it.
type stmtCache struct {
	db *sql.DB
	mu sync.Mutex
	m  map[string]*sql.Stmt

	// slots admits readers to the pool in arrival order, one slot per pooled connection,
	// held until the rows are done. database/sql hands a freed connection to a random waiter,
	// so under load an unlucky request kept losing that draw: 64 clients on the txs list
	// (4 connections) had a p99 of 57-67 ms and a slowest answer of 123-172 ms beside a mean of
	// 14-17 ms; in arrival order, 24-25 ms and 45-52 ms (docs/performance.md). The
	// semaphore's waiters are served first come, first served.
	slots *semaphore.Weighted
}

// get returns the prepared statement for q, or nil when the cache is full.
func (c *stmtCache) get(ctx context.Context, q string) (*sql.Stmt, error) {
	c.mu.Lock()
	st, ok := c.m[q]
	full := len(c.m) >= StmtCacheSize
	c.mu.Unlock()
	if ok || full {
		return st, nil
	}
	// Prepared outside the lock: preparing may wait for a pooled connection.
	st, err := c.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.m[q]; ok {
		_ = st.Close() //nolint:sqlclosecheck // lost the race to cache it: the cached twin is used
		return prev, nil
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	if len(c.m) >= StmtCacheSize {
		_ = st.Close()
		return nil, nil
	}
	c.m[q] = st
	return st, nil
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		_ = st.Close()
	}
	c.m = nil
}

// Query runs q as a cached prepared statement, once a read slot is free.
func (c *stmtCache) Query(ctx context.Context, q string, args ...any) (Rows, error) {
	if err := c.slots.Acquire(ctx, 1); err != nil {
		return nil, err
	}
	r, err := c.run(ctx, q, args...)
	if err != nil {
		c.slots.Release(1)
		return nil, err
	}
	return &sqlRows{Rows: r, slot: c.slots}, nil
}

func (c *stmtCache) run(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	st, err := c.get(ctx, q) //nolint:sqlclosecheck // cached: closed with the cache
	if err != nil {
		return nil, err
	}
	if st == nil {
		return c.db.QueryContext(ctx, q, args...)
	}
	return st.QueryContext(ctx, args...)
}

// sqlRows are database/sql rows; slot, when set, is the semaphore of the read slot they hold,
// given back once: when Next runs out (database/sql then closes the rows itself) or at Close,
// whichever comes first.
type sqlRows struct {
	*sql.Rows
	slot *semaphore.Weighted
}

func (r *sqlRows) Next() bool {
	if r.Rows.Next() {
		return true
	}
	r.done()
	return false
}

func (r *sqlRows) Close() {
	_ = r.Rows.Close()
	r.done()
}

func (r *sqlRows) done() {
	if r.slot != nil {
		r.slot.Release(1)
		r.slot = nil
	}
}

// Dialect implements Backend.
func (b *Lite) Dialect() Dialect { return SQLite }

// Reader implements Backend.
func (b *Lite) Reader() Conn { return &b.stmts }

// ForUpdate implements Backend: SQLite's writer holds the whole file already.
func (b *Lite) ForUpdate() string { return "" }

// Contains implements Backend.
func (b *Lite) Contains(col string) string { return "instr(" + col + ", ?) > 0" }

// Reset has nothing to do: an embedded database has no session a server could end.
func (b *Lite) Reset() {}

// Close implements Backend.
func (b *Lite) Close() error {
	b.stmts.close()
	err := b.r.Close()
	if b.w != nil {
		err = errors.Join(err, b.w.Close())
	}
	return err
}

// Begin implements Backend.
func (b *Lite) Begin(ctx context.Context) (Tx, error) {
	tx, err := b.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return &sqlTx{tx: tx}, nil
}

// sqlTx is a database/sql transaction: SQLite's, or PostgreSQL's through pgx's stdlib driver
// (OpenSQL), whose queries are rebound.
type sqlTx struct {
	tx *sql.Tx
	pg bool
}

func (t *sqlTx) q(q string) string {
	if t.pg {
		return Rebind(q)
	}
	return q
}

func (t *sqlTx) Query(ctx context.Context, q string, args ...any) (Rows, error) {
	r, err := t.tx.QueryContext(ctx, t.q(q), args...)
	if err != nil {
		return nil, err
	}
	return &sqlRows{Rows: r}, nil
}

func (t *sqlTx) Exec(ctx context.Context, q string, args ...any) error {
	_, err := t.tx.ExecContext(ctx, t.q(q), args...)
	return err
}

// insertParams bounds the parameters of one multi-row INSERT on SQLite.
const insertParams = 512

// InsertRows inserts rs with a prepared multi-row INSERT of up to insertParams parameters
// (and one statement for the remainder): SQLite is in-process, so what a row costs is the
// driver's work per statement execution (database/sql, the transpiled sqlite3_step, reset),
// which a statement of many rows pays once. The 44,014 internal txs and their account edges of
// the busy capture took 0.74 s of CPU in row-at-a-time inserts.
func (t *sqlTx) InsertRows(ctx context.Context, table string, cols []string, rs [][]any) error {
	if len(rs) == 0 {
		return nil
	}
	per := max(1, insertParams/len(cols))
	prefix := "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES "
	row := "(" + Placeholders(len(cols)) + ")"
	var st *sql.Stmt
	defer func() {
		if st != nil {
			_ = st.Close()
		}
	}()
	args := make([]any, 0, per*len(cols))
	for start := 0; start < len(rs); start += per {
		chunk := rs[start:min(start+per, len(rs))]
		if st == nil || len(chunk) != per {
			if st != nil {
				_ = st.Close()
			}
			var err error
			st, err = t.tx.PrepareContext(ctx, t.q(prefix+strings.TrimSuffix(strings.Repeat(row+",", len(chunk)), ",")))
			if err != nil {
				return err
			}
		}
		args = args[:0]
		for _, r := range chunk {
			args = append(args, r...)
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return err
		}
	}
	return nil
}

func (t *sqlTx) Commit(context.Context) error { return t.tx.Commit() }

func (t *sqlTx) Rollback(context.Context) error {
	if err := t.tx.Rollback(); !errors.Is(err, sql.ErrTxDone) {
		return err
	}
	return nil
}

// Placeholders is n '?' placeholders separated by commas.
func Placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}
