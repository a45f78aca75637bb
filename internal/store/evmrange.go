package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// EVMRange selects EVM txs (or internal txs) by block range, the way Etherscan-style
// account lists and getLogs page: an optional account, inclusive heights, an order and an
// offset page. Offsets are bounded by the caller (Etherscan's page × offset ≤ 10,000).
type EVMRange struct {
	Account    []byte // raw address bytes; nil: any account
	FromHeight int64  // inclusive; 0: from the first block
	ToHeight   int64  // inclusive; 0: up to the indexed height
	Desc       bool   // newest first
	Offset     int    // rows to skip
	Limit      int    // rows to return, > 0
	// Hash, for internal txs, keeps those of one traced tx (Account and heights ignored).
	Hash []byte
}

// EVMRangeReader reads EVM txs and internal txs by block range (Etherscan's txlist,
// txlistinternal, tokentx, tokennfttx, getLogs) and block heights by time
// (getblocknobytime). A range is first turned into a sequence range on the height indexes,
// then read on the primary key or the account's edge rows: no read scans more rows than it
// returns plus the offset.
type EVMRangeReader interface {
	EVMTxsInRange(ctx context.Context, q EVMRange) ([]TxRecord, error)
	InternalTxsInRange(ctx context.Context, q EVMRange) ([]TxRecord, error)
	BlockAtTime(ctx context.Context, t time.Time, before bool) (int64, error)
}

var _ EVMRangeReader = (*DB)(nil)

// seqBounds turns inclusive heights into the inclusive sequence range of table's rows in
// them; ok is false when no row falls in the range.
func seqBounds(ctx context.Context, c conn, table string, from, to int64) (lo, hi int64, ok bool, err error) {
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

func rangeOrder(desc bool, col string, limit, offset int) string {
	dir := ""
	if desc {
		dir = " DESC"
	}
	return fmt.Sprintf(" ORDER BY %s%s LIMIT %d OFFSET %d", col, dir, limit, offset)
}

// EVMTxsInRange implements EVMRangeReader.
func (d *DB) EVMTxsInRange(ctx context.Context, q EVMRange) ([]TxRecord, error) {
	if q.Limit <= 0 {
		return []TxRecord{}, nil
	}
	c := d.be.reader()
	lo, hi, ok, err := seqBounds(ctx, c, "evm_tx", q.FromHeight, q.ToHeight)
	if err != nil {
		return nil, fmt.Errorf("evm txs in range: %w", err)
	}
	if !ok {
		return []TxRecord{}, nil
	}
	var r rows
	if q.Account != nil {
		var id int64
		err := queryRow(ctx, c, "SELECT id FROM account_dict WHERE account = ?", []any{nonNil(q.Account)}, &id)
		if errors.Is(err, ErrNotFound) {
			return []TxRecord{}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("evm txs in range: account: %w", err)
		}
		r, err = c.query(ctx, "SELECT t.sequence, t.height, t.data FROM evm_tx_accounts e JOIN evm_tx t ON t.sequence = e.sequence"+
			" WHERE e.account_id = ? AND e.sequence >= ? AND e.sequence <= ?"+rangeOrder(q.Desc, "e.sequence", q.Limit, q.Offset), id, lo, hi)
		if err != nil {
			return nil, fmt.Errorf("evm txs in range: %w", err)
		}
	} else {
		r, err = c.query(ctx, "SELECT sequence, height, data FROM evm_tx WHERE sequence >= ? AND sequence <= ?"+
			rangeOrder(q.Desc, "sequence", q.Limit, q.Offset), lo, hi)
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
	c := d.be.reader()
	var r rows
	var err error
	switch {
	case q.Hash != nil:
		r, err = c.query(ctx, "SELECT sequence, height, data FROM evm_internal_tx WHERE hash = ?"+
			rangeOrder(q.Desc, "sequence", q.Limit, q.Offset), nonNil(q.Hash))
	default:
		lo, hi, ok, berr := seqBounds(ctx, c, "evm_internal_tx", q.FromHeight, q.ToHeight)
		if berr != nil {
			return nil, fmt.Errorf("internal txs in range: %w", berr)
		}
		if !ok {
			return []TxRecord{}, nil
		}
		if q.Account != nil {
			r, err = c.query(ctx, "SELECT t.sequence, t.height, t.data FROM evm_internal_tx_accounts e JOIN evm_internal_tx t ON t.sequence = e.sequence"+
				" WHERE e.account = ? AND e.sequence >= ? AND e.sequence <= ?"+rangeOrder(q.Desc, "e.sequence", q.Limit, q.Offset), nonNil(q.Account), lo, hi)
		} else {
			r, err = c.query(ctx, "SELECT sequence, height, data FROM evm_internal_tx WHERE sequence >= ? AND sequence <= ?"+
				rangeOrder(q.Desc, "sequence", q.Limit, q.Offset), lo, hi)
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
