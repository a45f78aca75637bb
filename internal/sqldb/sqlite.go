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
		// cache_size(-65536): 64 MiB of page cache on the one writer connection; at the
		// default 2 MiB the index inserts of a catch-up batch miss the cache and re-read
		// pages from the file (about a sixth of the indexer's CPU to the top of the busy
		// capture).
		w, err = sql.Open("sqlite", base+"&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=temp_store(MEMORY)&_pragma=cache_size(-65536)&_txlock=immediate")
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
	// wstmts are the write statements kept prepared on the writer connection across
	// transactions (see writeStmts).
	wstmts writeStmts
}

// writeStmts keeps the write transactions' statements prepared on the single writer
// connection from one transaction to the next. A transaction's own statements (sqlTx.stmts)
// end with it, so each catch-up batch parsed and planned the same upserts and multi-row
// INSERTs again: sqlite3_prepare was 0.22 s of the indexer's 3.4 s CPU to the top of the busy
// capture. A statement first met in a transaction is prepared there and, once that ends, on
// the pool (the one connection is free then); later transactions take it with Tx.StmtContext,
// which reuses what the connection already prepared.
type writeStmts struct {
	mu     sync.Mutex
	m      map[string]*sql.Stmt
	closed bool
	wg     sync.WaitGroup
}

// writeStmtCacheSize bounds the statements kept across write transactions (past it, as before:
// prepared per transaction). The writers' texts are a fixed set plus IN lists and multi-row
// VALUES whose lengths vary with the batch.
const writeStmtCacheSize = 1024

// get is q's statement kept across transactions, or nil.
func (c *writeStmts) get(q string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[q]
}

// keep prepares the texts on db, the writer pool, while the cache has room, in the
// background: the next transaction may hold the one connection already, and none waits for
// this. A text that fails to prepare is left out (the next transaction prepares it itself).
func (c *writeStmts) keep(db *sql.DB, qs []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		for _, q := range qs {
			c.mu.Lock()
			skip := c.closed || c.m[q] != nil || len(c.m) >= writeStmtCacheSize
			c.mu.Unlock()
			if skip {
				continue
			}
			st, err := db.Prepare(q) //nolint:noctx // no request to cancel; Close waits for it
			if err != nil {
				continue
			}
			c.mu.Lock()
			if c.closed || c.m[q] != nil || len(c.m) >= writeStmtCacheSize {
				_ = st.Close() //nolint:sqlclosecheck // not kept: the cache is closed or holds its twin
			} else {
				if c.m == nil {
					c.m = map[string]*sql.Stmt{}
				}
				c.m[q] = st
			}
			c.mu.Unlock()
		}
	}()
}

// close closes the kept statements, after any preparing under way.
func (c *writeStmts) close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		_ = st.Close()
	}
	c.m = nil
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
	b.wstmts.close()
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
	return &sqlTx{tx: tx, cache: true, lite: b}, nil
}

// sqlTx is a database/sql transaction: SQLite's, or PostgreSQL's through pgx's stdlib driver
// (OpenSQL), whose queries are rebound.
type sqlTx struct {
	tx *sql.Tx
	pg bool
	// cache: Query, Exec and InsertRows keep their statements prepared for the rest of the
	// transaction (stmts, at most txStmtCacheSize). SQLite's driver otherwise parses and plans
	// every Exec with arguments anew: a catch-up batch runs the same few upserts once per row,
	// and their preparing was 0.43 s of the indexer's 7.3 s CPU on the busy capture.
	cache bool
	stmts map[string]*sql.Stmt
	// lite, when set, keeps the statements across transactions (Lite.wstmts); fresh are the
	// texts this transaction prepared that the cache does not hold yet.
	lite  *Lite
	fresh []string
}

// txStmtCacheSize bounds the statements one SQLite write transaction keeps prepared; past it
// a statement is prepared and finalized per call, as without the cache. The writers' queries
// are a fixed set plus IN lists and multi-row VALUES of a few lengths.
const txStmtCacheSize = 256

// stmt is q prepared on the transaction and kept for its rest (database/sql closes a
// transaction's statements when it ends), or nil when the cache is off or full.
func (t *sqlTx) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if !t.cache {
		return nil, nil
	}
	if st, ok := t.stmts[q]; ok {
		return st, nil
	}
	if len(t.stmts) >= txStmtCacheSize {
		return nil, nil
	}
	var st *sql.Stmt
	if t.lite != nil {
		if kept := t.lite.wstmts.get(q); kept != nil {
			st = t.tx.StmtContext(ctx, kept)
		}
	}
	if st == nil {
		var err error
		if st, err = t.tx.PrepareContext(ctx, q); err != nil {
			return nil, err
		}
		if t.lite != nil {
			t.fresh = append(t.fresh, q)
		}
	}
	if t.stmts == nil {
		t.stmts = map[string]*sql.Stmt{}
	}
	t.stmts[q] = st
	return st, nil
}

func (t *sqlTx) q(q string) string {
	if t.pg {
		return Rebind(q)
	}
	return q
}

func (t *sqlTx) Query(ctx context.Context, q string, args ...any) (Rows, error) {
	if len(args) > 0 {
		st, err := t.stmt(ctx, t.q(q)) //nolint:sqlclosecheck // cached: closed with the transaction
		if err != nil {
			return nil, err
		}
		if st != nil {
			r, err := st.QueryContext(ctx, args...)
			if err != nil {
				return nil, err
			}
			return &sqlRows{Rows: r}, nil
		}
	}
	r, err := t.tx.QueryContext(ctx, t.q(q), args...)
	if err != nil {
		return nil, err
	}
	return &sqlRows{Rows: r}, nil
}

func (t *sqlTx) Exec(ctx context.Context, q string, args ...any) error {
	if len(args) > 0 {
		st, err := t.stmt(ctx, t.q(q)) //nolint:sqlclosecheck // cached: closed with the transaction
		if err != nil {
			return err
		}
		if st != nil {
			_, err = st.ExecContext(ctx, args...)
			return err
		}
	}
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
	owned := false // st is not the cache's: close it when done with it
	defer func() {
		if owned {
			_ = st.Close()
		}
	}()
	args := make([]any, 0, per*len(cols))
	for start := 0; start < len(rs); start += per {
		chunk := rs[start:min(start+per, len(rs))]
		if st == nil || len(chunk) != per {
			if owned {
				_ = st.Close()
			}
			q := t.q(prefix + strings.TrimSuffix(strings.Repeat(row+",", len(chunk)), ","))
			var err error
			if st, err = t.stmt(ctx, q); err != nil {
				return err
			}
			owned = st == nil
			if owned {
				if st, err = t.tx.PrepareContext(ctx, q); err != nil {
					owned = false
					return err
				}
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

func (t *sqlTx) Commit(context.Context) error {
	err := t.tx.Commit()
	t.keep()
	return err
}

func (t *sqlTx) Rollback(context.Context) error {
	err := t.tx.Rollback()
	t.keep()
	if !errors.Is(err, sql.ErrTxDone) {
		return err
	}
	return nil
}

// keep hands the texts this transaction prepared to the writer's cache, once the transaction
// has given the connection back.
func (t *sqlTx) keep() {
	if t.lite != nil && len(t.fresh) > 0 {
		t.lite.wstmts.keep(t.lite.w, t.fresh)
		t.fresh = nil
	}
}

// Placeholders is n '?' placeholders separated by commas.
func Placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}
