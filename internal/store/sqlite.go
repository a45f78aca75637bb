package store

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// sqliteBackend keeps two pools on one file: a single writer connection (BEGIN IMMEDIATE, so
// a write transaction takes the lock up front instead of failing on upgrade) and a read pool
// that WAL lets run beside the writer.
type sqliteBackend struct {
	w, r *sql.DB
}

func openSQLite(ctx context.Context, path string) (*sqliteBackend, error) {
	if path == "" {
		return nil, fmt.Errorf("sqlite DSN without a path")
	}
	base := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)"
	w, err := sql.Open("sqlite", base+"&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	r, err := sql.Open("sqlite", base+"&_pragma=query_only(1)")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	r.SetMaxOpenConns(max(4, 2*runtime.NumCPU()))
	r.SetMaxIdleConns(max(4, 2*runtime.NumCPU()))
	return &sqliteBackend{w: w, r: r}, nil
}

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { _ = r.Rows.Close() }

type sqlConn struct {
	db interface {
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	}
}

func (c sqlConn) query(ctx context.Context, q string, args ...any) (rows, error) {
	r, err := c.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{r}, nil
}

func (b *sqliteBackend) reader() conn      { return sqlConn{b.r} }
func (b *sqliteBackend) forUpdate() string { return "" }

func (b *sqliteBackend) close() error {
	err1 := b.r.Close()
	err2 := b.w.Close()
	if err1 != nil {
		return err1
	}
	return err2
}

func (b *sqliteBackend) begin(ctx context.Context) (wtx, error) {
	tx, err := b.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return &sqliteTx{tx: tx}, nil
}

type sqliteTx struct{ tx *sql.Tx }

func (t *sqliteTx) query(ctx context.Context, q string, args ...any) (rows, error) {
	return sqlConn{t.tx}.query(ctx, q, args...)
}

func (t *sqliteTx) exec(ctx context.Context, q string, args ...any) error {
	_, err := t.tx.ExecContext(ctx, q, args...)
	return err
}

// insertRows uses one prepared statement: SQLite is in-process, so per-row calls cost no
// round trip and a multi-row VALUES list would only add parsing.
func (t *sqliteTx) insertRows(ctx context.Context, table string, cols []string, rs [][]any) error {
	if len(rs) == 0 {
		return nil
	}
	st, err := t.tx.PrepareContext(ctx, "INSERT INTO "+table+" ("+strings.Join(cols, ", ")+") VALUES ("+placeholders(len(cols))+")")
	if err != nil {
		return err
	}
	defer st.Close()
	for _, r := range rs {
		if _, err := st.ExecContext(ctx, r...); err != nil {
			return err
		}
	}
	return nil
}

func (t *sqliteTx) commit(context.Context) error   { return t.tx.Commit() }
func (t *sqliteTx) rollback(context.Context) error { return ignoreDone(t.tx.Rollback()) }

func ignoreDone(err error) error {
	if err == sql.ErrTxDone {
		return nil
	}
	return err
}
