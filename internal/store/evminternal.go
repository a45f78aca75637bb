package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// InternalTx is one call frame of a traced EVM tx (debug_traceBlockByNumber, callTracer).
type InternalTx struct {
	Hash     []byte          // transactionHash of the traced tx
	From, To []byte          // 20-byte addresses; nil when the frame has none
	JSON     json.RawMessage // the API's internal tx object, served verbatim
}

// InternalBlock is the internal txs of one height, in tx order then pre-order within a tx. A
// block without any still advances InternalTxHeight.
type InternalBlock struct {
	Height int64
	Txs    []InternalTx
}

// InternalTxFilter narrows an internal tx list; at most one field is set by the API. The zero
// value lists every internal tx.
type InternalTxFilter struct {
	Account []byte // from or to
	Height  int64
	Hash    []byte // the traced tx
}

// ErrInternalOrder is returned by WriteInternalTxs for heights that are not ascending.
var ErrInternalOrder = errors.New("internal tx heights are not ascending")

// WriteInternalTxs stores the internal txs of ascending heights above InternalTxHeight (lower
// ones are skipped, so a replay after a crash is a no-op) and records the last height, in one
// transaction. It runs beside WriteBlocks (the internal-tx follower) and never touches the
// tables WriteBlocks assigns ids in, so the two run at once where the database allows it
// (PostgreSQL; they meet only on the evm_state row, each updating its own columns, which
// orders their commits). On SQLite the single writer connection takes them in turn.
func (d *DB) WriteInternalTxs(ctx context.Context, blocks []InternalBlock) error {
	if len(blocks) == 0 {
		return nil
	}
	d.internalMu.Lock()
	defer d.internalMu.Unlock()
	return inTx(ctx, d.be, func(tx sqldb.Tx) (func(), error) { return d.writeInternalTxs(ctx, tx, blocks) })
}

// writeInternalTxs is WriteInternalTxs' transaction; after, when set, runs once it committed
// (the statistics keeper).
func (d *DB) writeInternalTxs(ctx context.Context, tx sqldb.Tx, blocks []InternalBlock) (after func(), err error) {
	var height, seq int64
	if err := queryRow(ctx, tx, "SELECT internal_height, internal_last_sequence FROM evm_state WHERE id = 1"+d.be.ForUpdate(), nil, &height, &seq); err != nil {
		return nil, fmt.Errorf("read evm_state: %w", err)
	}
	for len(blocks) > 0 && blocks[0].Height <= height {
		blocks = blocks[1:]
	}
	if len(blocks) == 0 {
		return nil, nil
	}
	for k := 1; k < len(blocks); k++ {
		if blocks[k].Height <= blocks[k-1].Height {
			return nil, fmt.Errorf("%w: %d after %d", ErrInternalOrder, blocks[k].Height, blocks[k-1].Height)
		}
	}

	var keys []any
	seen := map[string]bool{}
	for _, b := range blocks {
		for _, t := range b.Txs {
			for _, a := range [][]byte{t.From, t.To} {
				if a != nil && !seen[string(a)] {
					seen[string(a)] = true
					keys = append(keys, a)
				}
			}
		}
	}
	counts := make(map[string]int64, len(keys))
	for start := 0; start < len(keys); start += dictChunk {
		chunk := keys[start:min(start+dictChunk, len(keys))]
		r, err := tx.Query(ctx, "SELECT account, tx_count FROM evm_internal_account WHERE account IN ("+placeholders(len(chunk))+")", chunk...)
		if err != nil {
			return nil, fmt.Errorf("internal tx accounts: %w", err)
		}
		for r.Next() {
			var a []byte
			var n int64
			if err := r.Scan(&a, &n); err != nil {
				r.Close()
				return nil, err
			}
			counts[string(a)] = n
		}
		err = r.Err()
		r.Close()
		if err != nil {
			return nil, err
		}
	}

	var txRows, accRows [][]any
	for _, b := range blocks {
		for _, t := range b.Txs {
			seq++
			txRows = append(txRows, []any{seq, b.Height, nonNil(t.Hash), string(t.JSON)})
			for i, a := range [][]byte{t.From, t.To} {
				if a == nil || (i == 1 && string(a) == string(t.From)) {
					continue
				}
				counts[string(a)]++
				accRows = append(accRows, []any{a, seq, counts[string(a)]})
			}
		}
	}
	if err := tx.InsertRows(ctx, "evm_internal_tx", []string{"sequence", "height", "hash", "data"}, txRows); err != nil {
		return nil, fmt.Errorf("insert evm_internal_tx: %w", err)
	}
	if err := tx.InsertRows(ctx, "evm_internal_tx_accounts", []string{"account", "sequence", "ord"}, accRows); err != nil {
		return nil, fmt.Errorf("insert evm_internal_tx_accounts: %w", err)
	}
	for start := 0; start < len(keys); start += dictChunk {
		chunk := keys[start:min(start+dictChunk, len(keys))]
		args := make([]any, 0, 2*len(chunk))
		for _, k := range chunk {
			args = append(args, k, counts[string(k.([]byte))])
		}
		q := "INSERT INTO evm_internal_account (account, tx_count) VALUES " +
			strings.TrimSuffix(strings.Repeat("(?, ?),", len(chunk)), ",") +
			" ON CONFLICT (account) DO UPDATE SET tx_count = excluded.tx_count"
		if err := tx.Exec(ctx, q, args...); err != nil {
			return nil, fmt.Errorf("update evm_internal_account: %w", err)
		}
	}
	last := blocks[len(blocks)-1].Height
	if err := tx.Exec(ctx, "UPDATE evm_state SET internal_height = ?, internal_last_sequence = ? WHERE id = 1", last, seq); err != nil {
		return nil, fmt.Errorf("update evm_state: %w", err)
	}
	return func() {
		if d.stats != nil {
			d.stats.wrote(int64(len(txRows)), seq)
		}
	}, nil
}

// InternalTxHeight implements EVMReader.
func (d *DB) InternalTxHeight(ctx context.Context) (int64, error) {
	// readRetrying: a session ended after the row arrived fails the read at its end, past the
	// reader's own retry (seen as a 503 on /status under pg_terminate_backend).
	return readRetrying(ctx, d, func() (int64, error) {
		var h int64
		if err := queryRow(ctx, d.be.Reader(), "SELECT internal_height FROM evm_state WHERE id = 1", nil, &h); err != nil {
			return 0, fmt.Errorf("internal tx height: %w", err)
		}
		return h, nil
	})
}

// InternalTxs implements EVMReader: all, one height and one tx are dense sequence ranges, one
// account a rank range on its edge rows.
func (d *DB) InternalTxs(ctx context.Context, f InternalTxFilter, p Page) (TxPage, error) {
	c := d.be.Reader()
	l := seqList{table: "evm_internal_tx"}
	switch {
	case f.Account != nil:
		err := queryRow(ctx, c, "SELECT tx_count FROM evm_internal_account WHERE account = ?", []any{nonNil(f.Account)}, &l.n)
		if errors.Is(err, ErrNotFound) {
			return TxPage{Txs: []TxRecord{}}, nil
		}
		if err != nil {
			return TxPage{}, fmt.Errorf("internal txs: account: %w", err)
		}
		l.edge, l.key, l.ord, l.keyVal = "evm_internal_tx_accounts", "account", "ord", nonNil(f.Account)
	case f.Hash != nil:
		if err := l.rangeOf(ctx, c, "hash", nonNil(f.Hash)); err != nil {
			return TxPage{}, fmt.Errorf("internal txs: %w", err)
		}
	case f.Height != 0:
		if err := l.rangeOf(ctx, c, "height", f.Height); err != nil {
			return TxPage{}, fmt.Errorf("internal txs: %w", err)
		}
	default:
		l.lo = 1
		if err := queryRow(ctx, c, "SELECT internal_last_sequence FROM evm_state WHERE id = 1", nil, &l.hi); err != nil {
			return TxPage{}, fmt.Errorf("internal txs: %w", err)
		}
	}
	return d.unpinned(l.page(ctx, c, p))
}

// EVMTxsAt is the stored EVM tx hashes of one height, in block order.
type EVMTxsAt struct {
	Height int64
	Hashes [][]byte
}

// EVMTxHashes lists the heights in [from, to] holding EVM txs, ascending, each with its txs'
// hashes: the blocks the internal-tx follower has to trace, and what their traces must name.
func (d *DB) EVMTxHashes(ctx context.Context, from, to int64) ([]EVMTxsAt, error) {
	r, err := d.be.Reader().Query(ctx, "SELECT height, hash FROM evm_tx WHERE height BETWEEN ? AND ? ORDER BY height, sequence", from, to)
	if err != nil {
		return nil, fmt.Errorf("evm tx hashes: %w", err)
	}
	defer r.Close()
	var out []EVMTxsAt
	for r.Next() {
		var h int64
		var hash []byte
		if err := r.Scan(&h, &hash); err != nil {
			return nil, err
		}
		if len(out) == 0 || out[len(out)-1].Height != h {
			out = append(out, EVMTxsAt{Height: h})
		}
		last := &out[len(out)-1]
		last.Hashes = append(last.Hashes, hash)
	}
	return out, r.Err()
}
