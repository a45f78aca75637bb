package sqldb

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// PG is the PostgreSQL backend: one pgx pool.
type PG struct {
	pool *pgxpool.Pool
}

// openPostgres opens a pool; with readOnly every session is read-only, so the server itself
// refuses DDL and writes from an API replica.
func openPostgres(ctx context.Context, dsn string, readOnly bool) (*PG, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// pgconn quotes the DSN with its password masked; Redact covers the rest.
		return nil, fmt.Errorf("parse postgres DSN: %s", Redact(err.Error()))
	}
	if readOnly {
		cfg.ConnConfig.RuntimeParams["default_transaction_read_only"] = "on"
	} else if _, set := cfg.ConnConfig.RuntimeParams["default_toast_compression"]; !set {
		cfg.AfterConnect = preferLZ4
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	return &PG{pool: pool}, nil
}

// preferLZ4 makes the writer's sessions compress large values (stored tx, receipt and block
// JSON) with lz4 instead of pglz: the server's own CPU was the PostgreSQL writer's limit, and
// with lz4 the busy capture's writes take 10-15 % less of it (docs/performance.md). A server
// built without lz4, or older than PostgreSQL 14, refuses the setting and keeps its default;
// a DSN that sets default_toast_compression keeps its own. Reads decompress either method.
func preferLZ4(ctx context.Context, c *pgx.Conn) error {
	_, _ = c.Exec(ctx, "SET default_toast_compression = 'lz4'")
	return nil
}

// Pool is the pgx pool, for statements outside the read and write paths (ANALYZE) and tests.
func (b *PG) Pool() *pgxpool.Pool { return b.pool }

// rebinds caches the '?'→'$n' rewrite of each query text (the texts are a small fixed set
// plus the IN-list variants).
var rebinds sync.Map

// Rebind turns '?' placeholders into $1, $2, …. The queries of the stores never contain a
// literal question mark.
func Rebind(q string) string {
	if v, ok := rebinds.Load(q); ok {
		return v.(string)
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(q[i])
	}
	out := b.String()
	rebinds.Store(q, out)
	return out
}

// Dialect implements Backend.
func (b *PG) Dialect() Dialect { return Postgres }

// Reader implements Backend.
func (b *PG) Reader() Conn { return pgReader{b} }

// ForUpdate implements Backend.
func (b *PG) ForUpdate() string { return " FOR UPDATE" }

// Contains implements Backend.
func (b *PG) Contains(col string) string { return "strpos(" + col + ", ?) > 0" }

// Close implements Backend.
func (b *PG) Close() error { b.pool.Close(); return nil }

// Reset closes the idle connections now and the checked-out ones when they are released.
func (b *PG) Reset() { b.pool.Reset() }

// Begin implements Backend.
func (b *PG) Begin(ctx context.Context) (Tx, error) {
	tx, err := b.pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return &pgTx{tx: tx}, nil
}

type pgTx struct{ tx pgx.Tx }

func (t *pgTx) Query(ctx context.Context, q string, args ...any) (Rows, error) {
	r, err := t.tx.Query(ctx, Rebind(q), args...) //nolint:sqlclosecheck // the caller closes the rows it gets
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (t *pgTx) Exec(ctx context.Context, q string, args ...any) error {
	_, err := t.tx.Exec(ctx, Rebind(q), args...)
	return err
}

// ExecBatch runs the statements in order in one round trip (a pgx batch); the first error
// stops it and names the statement.
func (t *pgTx) ExecBatch(ctx context.Context, stmts []Stmt) error {
	r, err := t.QueryAfter(ctx, stmts, "")
	if err != nil {
		return err
	}
	r.Close()
	return nil
}

// QueryAfter runs the statements and then the query q (none when q is empty) in one round
// trip; the rows it returns end the batch when closed.
func (t *pgTx) QueryAfter(ctx context.Context, stmts []Stmt, q string, args ...any) (Rows, error) {
	b := &pgx.Batch{}
	for _, s := range stmts {
		b.Queue(Rebind(s.Q), s.Args...)
	}
	if q != "" {
		b.Queue(Rebind(q), args...)
	}
	if b.Len() == 0 {
		return batchRows{}, nil
	}
	br := t.tx.SendBatch(ctx, b)
	for i, s := range stmts {
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			return nil, fmt.Errorf("batched statement %d of %d (%.60s): %w", i+1, len(stmts), s.Q, err)
		}
	}
	if q == "" {
		if err := br.Close(); err != nil {
			return nil, err
		}
		return batchRows{}, nil
	}
	r, err := br.Query()
	if err != nil {
		_ = br.Close()
		return nil, err
	}
	return &batchRows{Rows: r, br: br}, nil
}

// batchRows are the rows of a batch's last query; Close ends the batch too. The zero value has
// no rows.
type batchRows struct {
	pgx.Rows
	br pgx.BatchResults
}

func (r batchRows) Next() bool {
	if r.Rows == nil {
		return false
	}
	return r.Rows.Next()
}

func (r batchRows) Err() error {
	if r.Rows == nil {
		return nil
	}
	return r.Rows.Err()
}

func (r batchRows) Close() {
	if r.Rows == nil {
		return
	}
	r.Rows.Close()
	_ = r.br.Close()
}

// InsertRows streams the rows with COPY inside the write transaction.
func (t *pgTx) InsertRows(ctx context.Context, table string, cols []string, rs [][]any) error {
	if len(rs) == 0 {
		return nil
	}
	n, err := t.tx.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rs))
	if err != nil {
		return err
	}
	if n != int64(len(rs)) {
		return fmt.Errorf("copy into %s: %d of %d rows", table, n, len(rs))
	}
	return nil
}

func (t *pgTx) Commit(ctx context.Context) error { return t.tx.Commit(ctx) }

func (t *pgTx) Rollback(ctx context.Context) error {
	err := t.tx.Rollback(ctx)
	if errors.Is(err, pgx.ErrTxClosed) {
		return nil
	}
	return err
}

// pgReader is the read side. A read whose pooled connection the server has ended
// (pg_terminate_backend, a restart: see ConnLost) runs again on a fresh one, with the pool
// reset since its other idle connections are most likely gone too: reads are idempotent, and
// an API replica should not answer 5xx for an operator's routine act. The failure shows either
// when the query is sent or at its first row; a failure after rows were handed out is returned.
type pgReader struct{ b *PG }

func (c pgReader) Query(ctx context.Context, q string, args ...any) (Rows, error) {
	q = Rebind(q)
	for attempt := 1; ; attempt++ {
		r, err := c.b.pool.Query(ctx, q, args...)
		if err == nil {
			if r.Next() {
				return &peekedRows{Rows: r, peeked: true}, nil
			}
			if err = r.Err(); err == nil {
				return r, nil // no rows; Next stays false
			}
			r.Close()
		}
		if attempt >= ReadAttempts || ctx.Err() != nil || !ConnLost(err) {
			return nil, err
		}
		c.b.Reset()
	}
}

// peekedRows is a result whose first row was already read by pgReader.
type peekedRows struct {
	pgx.Rows
	peeked bool
}

func (r *peekedRows) Next() bool {
	if r.peeked {
		r.peeked = false
		return true
	}
	return r.Rows.Next()
}
