package store

// The backfill of the transfers index: a store indexed before the index existed holds its
// old heights' txs, whose stored JSON carries their events, so those heights' transfers are
// read from the store itself, a bounded batch of heights per transaction, with the progress
// (transfer_backfill) committed in the same transaction as the rows: a backfill stopped at
// any point resumes at the first height it did not commit.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// TransferBackfill is the backfill's progress: heights Next..End are still to read.
type TransferBackfill struct {
	Start, Next, End int64 // Start: the first height of the range
	Rows             int64 // transfers written so far
}

// Done reports whether every height of the range was read.
func (b TransferBackfill) Done() bool { return b.Next > b.End }

// BackfillTx is a stored tx as the backfill hands it to its reading.
type BackfillTx struct {
	Index int    // position in its block
	JSON  []byte // the stored tx object (with its events)
}

// BackfillRead reads the transfers of one height from its stored txs, in tx order.
type BackfillRead func(ctx context.Context, height int64, txs []BackfillTx) (TransferRows, error)

// BackfillTransfers reads the transfers of the next batch heights of the backfill's range
// with read and writes them with their counts and the new progress in one transaction. The
// range is fixed on the first call: the store's first height up to the height below the
// lowest one holding transfers (below which the index was not written), or up to the indexed
// height when none does. A height that already holds transfers is skipped, so a batch is
// never written twice whatever the state says.
func (d *DB) BackfillTransfers(ctx context.Context, batch int64, read BackfillRead) (TransferBackfill, error) {
	if batch <= 0 {
		batch = 100
	}
	d.writeMu.Lock()
	defer d.writeMu.Unlock()
	var out TransferBackfill
	err := inTx(ctx, d.be, func(tx sqldb.Tx) (func(), error) {
		st, err := d.backfillState(ctx, tx)
		if err != nil || st.Done() {
			out = st
			return nil, err
		}
		lo, hi := st.Next, min(st.End, st.Next+batch-1)
		rows, err := backfillRows(ctx, tx, lo, hi, read)
		if err != nil {
			return nil, err
		}
		w := &transferWriter{}
		for i := range rows {
			w.Add(&rows[i], rows[i].Extensions[0], 0)
		}
		if err := w.Write(ctx, tx, d.be.ForUpdate()); err != nil {
			return nil, err
		}
		st.Next, st.Rows = hi+1, st.Rows+int64(len(w.rows))
		if err := tx.Exec(ctx, "UPDATE transfer_backfill SET next_height = ?, end_height = ?, rows = ? WHERE id = 1", st.Next, st.End, st.Rows); err != nil {
			return nil, fmt.Errorf("transfer backfill: state: %w", err)
		}
		out = st
		return nil, nil
	})
	return out, err
}

// backfillState reads the progress, fixing the range on the first call.
func (d *DB) backfillState(ctx context.Context, tx sqldb.Tx) (TransferBackfill, error) {
	var st TransferBackfill
	if err := queryRow(ctx, tx, "SELECT next_height, end_height, rows FROM transfer_backfill WHERE id = 1"+d.be.ForUpdate(), nil,
		&st.Next, &st.End, &st.Rows); err != nil {
		return st, fmt.Errorf("transfer backfill: state: %w", err)
	}
	ist, err := readState(ctx, tx, "")
	if err != nil {
		return st, err
	}
	st.Start = ist.firstHeight
	if st.Next > 0 {
		return st, nil
	}
	var low int64
	err = queryRow(ctx, tx, "SELECT height FROM transfer ORDER BY id LIMIT 1", nil, &low)
	switch {
	case errors.Is(err, ErrNotFound):
		st.End = ist.height
	case err != nil:
		return st, fmt.Errorf("transfer backfill: lowest height: %w", err)
	default:
		st.End = low - 1
	}
	st.Next = max(ist.firstHeight, 1)
	if ist.height == 0 {
		st.Next, st.End = 1, 0 // an empty store: nothing to read
	}
	if err := tx.Exec(ctx, "UPDATE transfer_backfill SET next_height = ?, end_height = ?, rows = 0 WHERE id = 1", st.Next, st.End); err != nil {
		return st, fmt.Errorf("transfer backfill: state: %w", err)
	}
	return st, nil
}

// TransferBackfillState reads the backfill's progress without starting it (Next = 0: not
// started).
func (d *DB) TransferBackfillState(ctx context.Context) (TransferBackfill, error) {
	var st TransferBackfill
	err := queryRow(ctx, d.be.Reader(), "SELECT next_height, end_height, rows FROM transfer_backfill WHERE id = 1", nil, &st.Next, &st.End, &st.Rows)
	if err != nil {
		return st, fmt.Errorf("transfer backfill: state: %w", err)
	}
	return st, nil
}

// backfillRows reads heights lo..hi (their blocks and txs) and their transfers as bundles of
// one ExtensionRows each; heights without a stored block (pruned) or already holding
// transfers are left out.
func backfillRows(ctx context.Context, tx sqldb.Tx, lo, hi int64, read BackfillRead) ([]BlockBundle, error) {
	done := map[int64]bool{}
	r, err := tx.Query(ctx, "SELECT DISTINCT height FROM transfer WHERE height >= ? AND height <= ?", lo, hi)
	if err != nil {
		return nil, fmt.Errorf("transfer backfill: %w", err)
	}
	for r.Next() {
		var h int64
		if err := r.Scan(&h); err != nil {
			r.Close()
			return nil, fmt.Errorf("transfer backfill: %w", err)
		}
		done[h] = true
	}
	r.Close()
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("transfer backfill: %w", err)
	}
	var out []BlockBundle
	at := map[int64]int{}
	r, err = tx.Query(ctx, "SELECT height, time_ns FROM block WHERE height >= ? AND height <= ? ORDER BY height", lo, hi)
	if err != nil {
		return nil, fmt.Errorf("transfer backfill: blocks: %w", err)
	}
	for r.Next() {
		var h, ns int64
		if err := r.Scan(&h, &ns); err != nil {
			r.Close()
			return nil, fmt.Errorf("transfer backfill: blocks: %w", err)
		}
		if !done[h] {
			at[h] = len(out)
			out = append(out, BlockBundle{Block: Block{Height: h, Time: time.Unix(0, ns).UTC()}})
		}
	}
	r.Close()
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("transfer backfill: blocks: %w", err)
	}
	txs := map[int64][]BackfillTx{}
	r, err = tx.Query(ctx, "SELECT height, tx_index, hash, data FROM tx WHERE height >= ? AND height <= ? ORDER BY sequence", lo, hi)
	if err != nil {
		return nil, fmt.Errorf("transfer backfill: txs: %w", err)
	}
	for r.Next() {
		var h int64
		var idx int
		var hash []byte
		var data string
		if err := r.Scan(&h, &idx, &hash, &data); err != nil {
			r.Close()
			return nil, fmt.Errorf("transfer backfill: txs: %w", err)
		}
		i, ok := at[h]
		if !ok {
			continue
		}
		b := &out[i]
		// The writer takes a transfer's tx hash by its index in Txs.
		for len(b.Txs) <= idx {
			b.Txs = append(b.Txs, Tx{})
		}
		b.Txs[idx] = Tx{Hash: hash, Height: h, Index: idx}
		txs[h] = append(txs[h], BackfillTx{Index: idx, JSON: []byte(data)})
	}
	r.Close()
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("transfer backfill: txs: %w", err)
	}
	for i := range out {
		rows, err := read(ctx, out[i].Block.Height, txs[out[i].Block.Height])
		if err != nil {
			return nil, fmt.Errorf("transfer backfill: height %d: %w", out[i].Block.Height, err)
		}
		out[i].Extensions = []ExtensionRows{rows}
	}
	return out, nil
}
