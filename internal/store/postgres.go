package store

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

type pgBackend struct {
	pool *pgxpool.Pool
}

// openPostgres opens a pool; with readOnly every session is read-only, so the server itself
// refuses DDL and writes from an API replica.
func openPostgres(ctx context.Context, dsn string, readOnly bool) (*pgBackend, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse postgres DSN: %w", err)
	}
	if readOnly {
		cfg.ConnConfig.RuntimeParams["default_transaction_read_only"] = "on"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	return &pgBackend{pool: pool}, nil
}

// rebinds caches the '?'→'$n' rewrite of each query text (the texts are a small fixed set
// plus the IN-list variants).
var rebinds sync.Map

// rebind turns '?' placeholders into $1, $2, …. The queries of this package never contain a
// literal question mark.
func rebind(q string) string {
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

type pgQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

type pgConn struct{ q pgQuerier }

func (c pgConn) query(ctx context.Context, q string, args ...any) (rows, error) {
	r, err := c.q.Query(ctx, rebind(q), args...) //nolint:sqlclosecheck // the caller closes the rows it gets
	if err != nil {
		return nil, err
	}
	return r, nil
}

// analyzedTables are the tables the writers fill, all of them: a table left out keeps the
// statistics of its empty state, and a statement prepared then keeps its plan, since only an
// ANALYZE of the table makes PostgreSQL plan it again (the rich list's balance read stayed a
// sequential scan while the table grew to 300,000 holders, over a second per block).
// TestAnalyzedTablesCoverSchema keeps the list whole.
const analyzedTables = "block, tx, tx_accounts, tx_msg_types, account_dict, msg_type_dict, " +
	"nft, nft_collection, nft_dict, nft_not_collection, nft_owner_collection, nft_rank_height, nft_rank_token, nft_txs, " +
	"evm_tx, evm_tx_accounts, evm_internal_tx, evm_internal_tx_accounts, evm_internal_account, " +
	"rich_list, rich_list_alias, rich_list_denom, rich_list_rank"

// analyze refreshes the statistics of the tables the writers fill. It runs on its own pool
// connection, outside any write transaction.
func (b *pgBackend) analyze(ctx context.Context) error {
	_, err := b.pool.Exec(ctx, "ANALYZE "+analyzedTables)
	return err
}

func (b *pgBackend) reader() conn      { return pgReader{b} }
func (b *pgBackend) forUpdate() string { return " FOR UPDATE" }

func (b *pgBackend) contains(col string) string { return "strpos(" + col + ", ?) > 0" }
func (b *pgBackend) close() error               { b.pool.Close(); return nil }

// reset closes the idle connections now and the checked-out ones when they are released.
func (b *pgBackend) reset() { b.pool.Reset() }

func (b *pgBackend) begin(ctx context.Context) (wtx, error) {
	tx, err := b.pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return &pgTx{tx: tx}, nil
}

type pgTx struct{ tx pgx.Tx }

func (t *pgTx) query(ctx context.Context, q string, args ...any) (rows, error) {
	return pgConn{t.tx}.query(ctx, q, args...)
}

func (t *pgTx) exec(ctx context.Context, q string, args ...any) error {
	_, err := t.tx.Exec(ctx, rebind(q), args...)
	return err
}

// insertRows streams the rows with COPY inside the write transaction.
func (t *pgTx) insertRows(ctx context.Context, table string, cols []string, rs [][]any) error {
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

func (t *pgTx) commit(ctx context.Context) error { return t.tx.Commit(ctx) }

func (t *pgTx) rollback(ctx context.Context) error {
	err := t.tx.Rollback(ctx)
	if errors.Is(err, pgx.ErrTxClosed) {
		return nil
	}
	return err
}

// readAttempts bounds how often a read is run again after its connection turned out dead.
const readAttempts = 3

// pgReader is the API side's connection. A read whose pooled connection the server has ended
// (pg_terminate_backend, a restart: see connLost) runs again on a fresh one, with the pool
// reset since its other idle connections are most likely gone too: reads are idempotent, and
// an API replica should not answer 5xx for an operator's routine act. The failure shows either
// when the query is sent or at its first row; a failure after rows were handed out is returned.
type pgReader struct{ b *pgBackend }

func (c pgReader) query(ctx context.Context, q string, args ...any) (rows, error) {
	q = rebind(q)
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
		if attempt >= readAttempts || ctx.Err() != nil || !connLost(err) {
			return nil, err
		}
		c.b.reset()
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
