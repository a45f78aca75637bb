package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"

	"github.com/jackc/pgx/v5/pgtype"
)

// Rows is what both drivers' result sets have in common.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// Conn runs queries written with '?' placeholders.
type Conn interface {
	Query(ctx context.Context, q string, args ...any) (Rows, error)
}

// Tx is one write transaction.
type Tx interface {
	Conn
	Exec(ctx context.Context, q string, args ...any) error
	// InsertRows bulk-inserts: COPY on PostgreSQL, a prepared multi-row INSERT on SQLite.
	InsertRows(ctx context.Context, table string, cols []string, rows [][]any) error
	Commit(ctx context.Context) error
	// Rollback is a no-op on a transaction already ended.
	Rollback(ctx context.Context) error
}

// Stmt is one statement of a batch.
type Stmt struct {
	Q    string
	Args []any
}

// Batcher is a Tx that sends many statements in one round trip (PostgreSQL's); a writer that
// issues many small statements queues them and sends them before its next read.
type Batcher interface {
	ExecBatch(ctx context.Context, stmts []Stmt) error
	QueryAfter(ctx context.Context, stmts []Stmt, q string, args ...any) (Rows, error)
}

// Beginner starts write transactions; the migration runner needs no more.
type Beginner interface {
	Begin(ctx context.Context) (Tx, error)
}

// Backend is an open database: a read pool and write transactions.
type Backend interface {
	Beginner
	Dialect() Dialect
	// Reader is the read pool: on SQLite a pool of query_only connections admitted through
	// read slots and a statement cache, on PostgreSQL the pgx pool with lost sessions retried.
	Reader() Conn
	// ForUpdate is the suffix that row-locks a read inside a write transaction.
	ForUpdate() string
	// Contains is a condition that text column col contains the next argument, case-sensitive
	// and with no wildcard (SQLite instr, PostgreSQL strpos).
	Contains(col string) string
	// Reset drops the pooled connections, so the next statement runs on a fresh one (after
	// the server ended the sessions; see ConnLost).
	Reset()
	Close() error
}

// Options tune Open and OpenSQL.
type Options struct {
	// ReadOnly opens connections that cannot write (SQLite query_only, PostgreSQL
	// default_transaction_read_only), never creates a SQLite file, and refuses Begin.
	ReadOnly bool
	// ReadConns sizes the SQLite read pool (0: max(4, 2×CPUs)) and, in OpenSQL, the
	// PostgreSQL pool.
	ReadConns int
}

func (o Options) readConns() int {
	if o.ReadConns > 0 {
		return o.ReadConns
	}
	return max(4, 2*runtime.NumCPU())
}

var (
	// ErrSchemaBehind: the database lacks migrations this binary has; the writer (or
	// `rollgate migrate`) applies them.
	ErrSchemaBehind = errors.New("store schema is older than this binary")
	// ErrSchemaAhead: a newer binary migrated the database; this one does not know its tables.
	ErrSchemaAhead = errors.New("store schema is newer than this binary")
	// ErrReadOnly is returned by Begin on a backend opened with Options.ReadOnly.
	ErrReadOnly = errors.New("store opened read-only")
)

// Open connects to the database named by dsn (see ParseDSN). It runs no statement beyond a
// ping: migrating is the caller's (Migrations.Apply, or Migrations.Check for a reader).
func Open(ctx context.Context, dsn string, o Options) (Backend, error) {
	t, err := ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	var b Backend
	switch t.Dialect {
	case SQLite:
		if o.ReadOnly {
			if _, err := os.Stat(t.Path); errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%w: no store at %s: run `rollgate migrate --db %s` (API replicas do not create or migrate the store)",
					ErrSchemaBehind, t.Path, Redact(dsn))
			}
		}
		b, err = openSQLite(ctx, t.Path, o)
	default:
		b, err = openPostgres(ctx, t.URL, o.ReadOnly)
	}
	if err != nil {
		return nil, err
	}
	if err := step(ctx, "connect", b.Reader()); err != nil {
		_ = b.Close()
		return nil, err
	}
	if o.ReadOnly {
		b = readOnly{b}
	}
	return b, nil
}

// readOnly is a backend opened with Options.ReadOnly: its connections cannot write, and it
// has no write transaction to offer.
type readOnly struct{ Backend }

func (readOnly) Begin(context.Context) (Tx, error) { return nil, ErrReadOnly }

// Unwrap returns the backend under a read-only one (b itself otherwise), for callers that
// look at its concrete type (*PG for the pool).
func Unwrap(b Backend) Backend {
	if ro, ok := b.(readOnly); ok {
		return ro.Backend
	}
	return b
}

// InTx runs f in a write transaction of b: committed when f returns nil, rolled back otherwise
// (also when the commit fails). When the error means the connection was lost, b's pool is
// reset, so a retry (see IsTransient) starts on a fresh connection instead of a dead pooled one.
func InTx(ctx context.Context, b Backend, f func(Tx) error) (err error) {
	defer func() {
		if err != nil && ConnLost(err) {
			b.Reset()
		}
	}()
	tx, err := b.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			if rerr := tx.Rollback(context.WithoutCancel(ctx)); rerr != nil && err == nil {
				err = fmt.Errorf("rollback: %w", rerr)
			}
		}
	}()
	if err := f(tx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	committed = true
	return nil
}

// ReadAttempts bounds how often a read is run again after its connection turned out dead.
const ReadAttempts = 3

// RawCols receives columns as the driver's bytes, without a copy, for scans that copy what
// they keep themselves: sql.RawBytes on SQLite, pgtype.DriverBytes on PostgreSQL. A column's
// bytes are valid until the next row; NULL reads as nil.
type RawCols struct {
	sqlite bool
	raw    []sql.RawBytes
	drv    []pgtype.DriverBytes
}

// NewRawCols makes the destinations for n columns of r, a result of this package's backends.
func NewRawCols(r Rows, n int) *RawCols {
	if _, ok := r.(*sqlRows); ok {
		return &RawCols{sqlite: true, raw: make([]sql.RawBytes, n)}
	}
	return &RawCols{drv: make([]pgtype.DriverBytes, n)}
}

// Dest is the Scan destination of column i.
func (c *RawCols) Dest(i int) any {
	if c.sqlite {
		return &c.raw[i]
	}
	return &c.drv[i]
}

// Get is column i of the row last scanned.
func (c *RawCols) Get(i int) []byte {
	if c.sqlite {
		return c.raw[i]
	}
	return c.drv[i]
}
