package store

import (
	"context"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// queueMax bounds the statements a queuedTx holds before it sends them.
const queueMax = 2000

// queuedTx holds a writer's statements back until it next reads (or bulk-inserts, or
// flushes), then sends them with that read in one round trip. The NFT writer issues a few
// small statements per change; on PostgreSQL each was a round trip to the server, which the
// writer spent most of its time waiting on. The statements still run in order and before any
// later read, so what the writer reads is what it read before. Without a Batcher (SQLite,
// where a statement costs no round trip) it runs each statement at once.
type queuedTx struct {
	sqldb.Tx
	b sqldb.Batcher
	q []sqldb.Stmt
}

func newQueuedTx(tx sqldb.Tx) *queuedTx {
	qt := &queuedTx{Tx: tx}
	qt.b, _ = tx.(sqldb.Batcher)
	return qt
}

func (t *queuedTx) Exec(ctx context.Context, q string, args ...any) error {
	if t.b == nil {
		return t.Tx.Exec(ctx, q, args...)
	}
	t.q = append(t.q, sqldb.Stmt{Q: q, Args: args})
	if len(t.q) >= queueMax {
		return t.flush(ctx)
	}
	return nil
}

func (t *queuedTx) Query(ctx context.Context, q string, args ...any) (sqldb.Rows, error) {
	if len(t.q) == 0 {
		return t.Tx.Query(ctx, q, args...)
	}
	stmts := t.q
	t.q = nil
	return t.b.QueryAfter(ctx, stmts, q, args...)
}

func (t *queuedTx) InsertRows(ctx context.Context, table string, cols []string, rs [][]any) error {
	if err := t.flush(ctx); err != nil {
		return err
	}
	return t.Tx.InsertRows(ctx, table, cols, rs)
}

// flush sends the queued statements.
func (t *queuedTx) flush(ctx context.Context) error {
	if len(t.q) == 0 {
		return nil
	}
	stmts := t.q
	t.q = nil
	return t.b.ExecBatch(ctx, stmts)
}

func (t *queuedTx) Commit(ctx context.Context) error {
	if err := t.flush(ctx); err != nil {
		return err
	}
	return t.Tx.Commit(ctx)
}
