package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// EVMRange selects EVM txs (or internal txs) by block range, the way Etherscan-style
// account lists and getLogs read: an optional account, inclusive heights, an order and a
// keyset position, so a caller that expands rows into items (logs, transfers) reads on in
// chunks without re-reading what it skipped.
type EVMRange struct {
	Account    []byte // raw address bytes; nil: any account
	FromHeight int64  // inclusive; 0: from the first block
	ToHeight   int64  // inclusive; 0: up to the indexed height
	Desc       bool   // newest first
	After      int64  // sequence to continue after, in the order; 0: from the start
	Limit      int    // rows to return, > 0
	// Hash, for internal txs, keeps those of one traced tx (Account and heights ignored).
	Hash []byte
	// Explorer, for EVM txs, appends each row's explorer keys (migration 0014: value, input,
	// nonce, gas, ...) inside its JSON's braces, as the EVM tx items read them; a row written
	// before 0014 (explorer NULL) keeps the receipt alone. Off, the JSON is the receipt.
	Explorer bool
}

// EVMRangeReader reads EVM txs and internal txs by block range (Etherscan's txlist,
// txlistinternal, tokentx, tokennfttx, getLogs) and block heights by time
// (getblocknobytime). A range is first turned into a sequence range on the height indexes,
// then read on the primary key or the account's edge rows: no read scans more rows than it
// returns plus the offset.
type EVMRangeReader interface {
	EVMTxsInRange(ctx context.Context, q EVMRange) ([]TxRecord, error)
	InternalTxsInRange(ctx context.Context, q EVMRange) ([]TxRecord, error)
	// BlockAtTime returns the height of the last block at or before t (before true) or of
	// the first at or after t; ErrNotFound when no stored block qualifies.
	BlockAtTime(ctx context.Context, t time.Time, before bool) (int64, error)
	// BlockTimes returns the header times of the stored blocks among heights, in one read.
	BlockTimes(ctx context.Context, heights []int64) (map[int64]time.Time, error)
}

var _ EVMRangeReader = (*DB)(nil)

// seqBounds turns inclusive heights into the inclusive sequence range of table's rows in
// them; ok is false when no row falls in the range.
func seqBounds(ctx context.Context, c sqldb.Conn, table string, from, to int64) (lo, hi int64, ok bool, err error) {
	if from < 1 {
		from = 1
	}
	err = queryRow(ctx, c, "SELECT sequence FROM "+table+" WHERE height >= ? ORDER BY height, sequence LIMIT 1", []any{from}, &lo)
	if errors.Is(err, ErrNotFound) {
		return 0, 0, false, nil
	}
	if err != nil {
		return 0, 0, false, err
	}
	if to <= 0 {
		err = queryRow(ctx, c, "SELECT sequence FROM "+table+" ORDER BY sequence DESC LIMIT 1", nil, &hi)
	} else {
		err = queryRow(ctx, c, "SELECT sequence FROM "+table+" WHERE height <= ? ORDER BY height DESC, sequence DESC LIMIT 1", []any{to}, &hi)
	}
	if errors.Is(err, ErrNotFound) {
		return 0, 0, false, nil
	}
	if err != nil {
		return 0, 0, false, err
	}
	return lo, hi, lo <= hi, nil
}

func rangeOrder(desc bool, col string, limit int) string {
	dir := ""
	if desc {
		dir = " DESC"
	}
	return fmt.Sprintf(" ORDER BY %s%s LIMIT %d", col, dir, limit)
}

// after narrows the inclusive sequence range [lo, hi] to what follows the keyset position.
func (q EVMRange) after(lo, hi int64) (int64, int64) {
	switch {
	case q.After <= 0:
	case q.Desc:
		hi = min(hi, q.After-1)
	default:
		lo = max(lo, q.After+1)
	}
	return lo, hi
}

// EVMTxsInRange implements EVMRangeReader.
func (d *DB) EVMTxsInRange(ctx context.Context, q EVMRange) ([]TxRecord, error) {
	if q.Limit <= 0 {
		return []TxRecord{}, nil
	}
	c := d.be.Reader()
	lo, hi, ok, err := seqBounds(ctx, c, "evm_tx", q.FromHeight, q.ToHeight)
	if err != nil {
		return nil, fmt.Errorf("evm txs in range: %w", err)
	}
	lo, hi = q.after(lo, hi)
	if !ok || lo > hi {
		return []TxRecord{}, nil
	}
	data := "t.data"
	if q.Explorer {
		data = evmTxData("t.")
	}
	var r sqldb.Rows
	if q.Account != nil {
		var id int64
		err := queryRow(ctx, c, "SELECT id FROM account_dict WHERE account = ?", []any{nonNil(q.Account)}, &id)
		if errors.Is(err, ErrNotFound) {
			return []TxRecord{}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("evm txs in range: account: %w", err)
		}
		r, err = c.Query(ctx, "SELECT t.sequence, t.height, "+data+" FROM evm_tx_accounts e JOIN evm_tx t ON t.sequence = e.sequence"+
			" WHERE e.account_id = ? AND e.sequence >= ? AND e.sequence <= ?"+rangeOrder(q.Desc, "e.sequence", q.Limit), id, lo, hi)
		if err != nil {
			return nil, fmt.Errorf("evm txs in range: %w", err)
		}
	} else {
		r, err = c.Query(ctx, "SELECT sequence, height, "+data+" FROM evm_tx t WHERE sequence >= ? AND sequence <= ?"+
			rangeOrder(q.Desc, "sequence", q.Limit), lo, hi)
		if err != nil {
			return nil, fmt.Errorf("evm txs in range: %w", err)
		}
	}
	out, err := scanTxs(r, q.Limit)
	if err != nil {
		return nil, fmt.Errorf("evm txs in range: %w", err)
	}
	return out, nil
}

// InternalTxsInRange implements EVMRangeReader.
func (d *DB) InternalTxsInRange(ctx context.Context, q EVMRange) ([]TxRecord, error) {
	if q.Limit <= 0 {
		return []TxRecord{}, nil
	}
	c := d.be.Reader()
	var r sqldb.Rows
	var err error
	switch {
	case q.Hash != nil:
		lo, hi := q.after(1, 1<<62)
		r, err = c.Query(ctx, "SELECT sequence, height, data FROM evm_internal_tx WHERE hash = ? AND sequence >= ? AND sequence <= ?"+
			rangeOrder(q.Desc, "sequence", q.Limit), nonNil(q.Hash), lo, hi)
	default:
		lo, hi, ok, berr := seqBounds(ctx, c, "evm_internal_tx", q.FromHeight, q.ToHeight)
		if berr != nil {
			return nil, fmt.Errorf("internal txs in range: %w", berr)
		}
		lo, hi = q.after(lo, hi)
		if !ok || lo > hi {
			return []TxRecord{}, nil
		}
		if q.Account != nil {
			r, err = c.Query(ctx, "SELECT t.sequence, t.height, t.data FROM evm_internal_tx_accounts e JOIN evm_internal_tx t ON t.sequence = e.sequence"+
				" WHERE e.account = ? AND e.sequence >= ? AND e.sequence <= ?"+rangeOrder(q.Desc, "e.sequence", q.Limit), nonNil(q.Account), lo, hi)
		} else {
			r, err = c.Query(ctx, "SELECT sequence, height, data FROM evm_internal_tx WHERE sequence >= ? AND sequence <= ?"+
				rangeOrder(q.Desc, "sequence", q.Limit), lo, hi)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("internal txs in range: %w", err)
	}
	out, err := scanTxs(r, q.Limit)
	if err != nil {
		return nil, fmt.Errorf("internal txs in range: %w", err)
	}
	return out, nil
}

// BlockTimes implements EVMRangeReader: one IN list on the primary key.
func (d *DB) BlockTimes(ctx context.Context, heights []int64) (map[int64]time.Time, error) {
	out := make(map[int64]time.Time, len(heights))
	if len(heights) == 0 {
		return out, nil
	}
	ph := make([]string, len(heights))
	args := make([]any, len(heights))
	for i, h := range heights {
		ph[i], args[i] = "?", h
	}
	r, err := d.be.Reader().Query(ctx, "SELECT height, time_ns FROM block WHERE height IN ("+strings.Join(ph, ",")+")", args...)
	if err != nil {
		return nil, fmt.Errorf("block times: %w", err)
	}
	defer r.Close()
	for r.Next() {
		var h, ns int64
		if err := r.Scan(&h, &ns); err != nil {
			return nil, fmt.Errorf("block times: %w", err)
		}
		out[h] = time.Unix(0, ns).UTC()
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("block times: %w", err)
	}
	return out, nil
}

// BlockAtTime implements EVMRangeReader by bisection on the block table's primary key:
// header times never decrease with the height, so about log2(blocks) point reads answer it
// without an index on the time. ErrNotFound when no stored block qualifies.
func (d *DB) BlockAtTime(ctx context.Context, t time.Time, before bool) (int64, error) {
	c := d.be.Reader()
	// The oldest kept block (pruning drops the first ones) and the newest: two seeks on the
	// primary key; an empty store has neither.
	var lo, hi int64
	if err := queryRow(ctx, c, "SELECT height FROM block ORDER BY height LIMIT 1", nil, &lo); err != nil {
		return 0, fmt.Errorf("block at time: %w", err)
	}
	if err := queryRow(ctx, c, "SELECT height FROM block ORDER BY height DESC LIMIT 1", nil, &hi); err != nil {
		return 0, fmt.Errorf("block at time: %w", err)
	}
	ns := t.UnixNano()
	at := func(h int64) (int64, error) {
		var tn int64
		err := queryRow(ctx, c, "SELECT time_ns FROM block WHERE height = ?", []any{h}, &tn)
		return tn, err
	}
	// Invariant for before: the answer is the largest h in [lo, hi] with time(h) <= ns.
	l, r := lo, hi
	found := int64(0)
	for l <= r {
		m := l + (r-l)/2
		tn, err := at(m)
		if err != nil {
			return 0, fmt.Errorf("block at time: %w", err)
		}
		if before {
			if tn <= ns {
				found, l = m, m+1
			} else {
				r = m - 1
			}
		} else {
			if tn >= ns {
				found, r = m, m-1
			} else {
				l = m + 1
			}
		}
	}
	if found == 0 {
		return 0, ErrNotFound
	}
	return found, nil
}
