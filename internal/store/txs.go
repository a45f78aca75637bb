package store

// Tx reads: one tx by hash, and tx lists. A list request is first resolved (dictionary ids,
// the height's sequence range, the cursor as a sequence bound) into a txQuery; txplans.go
// then answers it with the cheapest plan that serves its shape.

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// Tx implements Reader. The rows of the hash are read whole and the first is picked here:
// with "ORDER BY sequence LIMIT 1" PostgreSQL may walk the primary key looking for the hash
// instead of using the hash index.
func (d *DB) Tx(ctx context.Context, hash []byte) (TxRecord, error) {
	return readRetrying(ctx, d, func() (TxRecord, error) { return d.tx(ctx, hash) })
}

func (d *DB) tx(ctx context.Context, hash []byte) (TxRecord, error) {
	return d.txByHash(ctx, "SELECT sequence, height, data FROM tx WHERE hash = ?", "tx by hash", hash)
}

// txByHash runs a by-hash query of a tx table (Cosmos or EVM) and keeps the first of the txs
// holding that hash (a hash can recur); what names the query in errors.
func (d *DB) txByHash(ctx context.Context, query, what string, hash []byte) (TxRecord, error) {
	r, err := d.be.Reader().Query(ctx, query, nonNil(hash))
	if err != nil {
		return TxRecord{}, fmt.Errorf("%s: %w", what, err)
	}
	txs, err := scanTxs(r, 1)
	if err != nil {
		return TxRecord{}, fmt.Errorf("%s: %w", what, err)
	}
	if len(txs) == 0 {
		return TxRecord{}, ErrNotFound
	}
	first := txs[0]
	for _, t := range txs[1:] {
		if t.Sequence < first.Sequence {
			first = t
		}
	}
	return first, nil
}

// Txs implements Reader: the request is resolved, then answered by the plan txPlanFor picks
// (see txplans.go). Only the page's rows are joined to tx.
func (d *DB) Txs(ctx context.Context, f TxFilter, p Page) (TxPage, error) {
	return readRetrying(ctx, d, func() (TxPage, error) { return d.txs(ctx, f, p) })
}

func (d *DB) txs(ctx context.Context, f TxFilter, p Page) (TxPage, error) {
	c := d.be.Reader()
	q, ok, err := d.resolveTxQuery(ctx, c, f, p)
	if err != nil {
		return TxPage{}, err
	}
	if !ok {
		return TxPage{Txs: []TxRecord{}}, nil
	}
	page, err := txPlanFor(q).run(ctx, c, q)
	if err != nil {
		return TxPage{}, err
	}
	page.Final = d.Retention() == 0 && q.final(len(page.Txs))
	return page, nil
}

// txQuery is a tx list request resolved against the store: what every plan works from.
type txQuery struct {
	f TxFilter
	p Page

	acc    *dictEntry  // the filter's account; nil without one
	msgs   []dictEntry // the filter's known message types in id order; nil without a msgs filter
	msgIDs []int64     // their ids

	// lo..hi is the sequence range the page is taken from, narrowed by the cursor; fullLo..fullHi
	// the filter's whole range (all txs, or one block's), which totals count over.
	lo, hi, fullLo, fullHi int64
	hasCursor              bool
	limit                  int

	st state // what the request was resolved against (see final)
}

// offset is the number of matching rows to skip: the page's offset, unless a cursor replaces it.
func (q *txQuery) offset() int64 {
	if q.hasCursor {
		return 0
	}
	return q.p.Offset
}

// resolveTxQuery looks up what the filter names; ok is false when it names something the
// store does not hold (an unknown account, height or set of types), so the page is empty.
func (d *DB) resolveTxQuery(ctx context.Context, c sqldb.Conn, f TxFilter, p Page) (q *txQuery, ok bool, err error) {
	st, err := d.readerState(ctx, c)
	if err != nil {
		return nil, false, err
	}
	q = &txQuery{f: f, p: p, lo: 1, hi: st.lastSequence, limit: limitOf(p), st: st}
	if f.Height != 0 {
		q.lo, q.hi, err = d.cachedHeightRange(ctx, c, st, f.Height)
		if errors.Is(err, ErrNotFound) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
	if f.MinHeight > 0 || f.MaxHeight > 0 {
		lo, hi, ok, err := seqRangeOfHeights(ctx, c, f.MinHeight, f.MaxHeight)
		if err != nil || !ok {
			return nil, false, err
		}
		q.lo, q.hi = max(q.lo, lo), min(q.hi, hi)
	}
	if q.hi < q.lo {
		return nil, false, nil
	}
	if f.Account != nil {
		if q.acc, err = d.cachedAccount(ctx, c, st, f.Account); err != nil || q.acc == nil {
			return nil, false, err
		}
	}
	if f.MsgTypes != nil {
		if q.msgs, err = d.cachedMsgTypes(ctx, c, st, f.MsgTypes); err != nil || len(q.msgs) == 0 {
			return nil, false, err
		}
		for _, m := range q.msgs {
			q.msgIDs = append(q.msgIDs, m.id)
		}
	}
	q.fullLo, q.fullHi = q.lo, q.hi
	if p.After.Kind == CursorNone {
		return q, true, nil
	}
	q.hasCursor = true
	after, err := cursorSequence(ctx, c, st, p)
	if err != nil {
		return nil, false, err
	}
	// Narrowed by comparing before adding or subtracting, so extreme cursor values cannot overflow.
	switch {
	case p.Desc && after <= q.lo:
		q.hi = q.lo - 1
	case p.Desc:
		q.hi = min(q.hi, after-1)
	case after >= q.hi:
		q.lo = q.hi + 1
	default:
		q.lo = max(q.lo, after+1)
	}
	return q, true, nil
}

// seqRangeOfHeights is the tx sequences of heights min..max (0: open), from the blocks' first
// and last sequences: two seeks on block's primary key. ok is false when no block lies there.
func seqRangeOfHeights(ctx context.Context, c sqldb.Conn, minH, maxH int64) (lo, hi int64, ok bool, err error) {
	lo, hi = 1, math.MaxInt64
	if minH > 0 {
		err = queryRow(ctx, c, "SELECT first_sequence FROM block WHERE height >= ? ORDER BY height LIMIT 1", []any{minH}, &lo)
		if errors.Is(err, ErrNotFound) {
			return 0, 0, false, nil
		}
		if err != nil {
			return 0, 0, false, fmt.Errorf("txs of heights: %w", err)
		}
	}
	if maxH > 0 {
		err = queryRow(ctx, c, "SELECT last_sequence FROM block WHERE height <= ? ORDER BY height DESC LIMIT 1", []any{maxH}, &hi)
		if errors.Is(err, ErrNotFound) {
			return 0, 0, false, nil
		}
		if err != nil {
			return 0, 0, false, fmt.Errorf("txs of heights: %w", err)
		}
	}
	return lo, hi, lo <= hi, nil
}

// cursorSequence turns the page's cursor into an exclusive sequence bound in page order: a
// height cursor means "past that block's txs".
func cursorSequence(ctx context.Context, c sqldb.Conn, st state, p Page) (int64, error) {
	var after int64
	switch {
	case p.After.Kind == CursorSequence:
		after = p.After.Value
	case p.After.Kind == CursorHeight && p.Desc:
		err := queryRow(ctx, c, "SELECT first_sequence FROM block WHERE height >= ? ORDER BY height LIMIT 1", []any{p.After.Value}, &after)
		if errors.Is(err, ErrNotFound) {
			after, err = st.lastSequence+1, nil
		}
		if err != nil {
			return 0, fmt.Errorf("resolve height cursor: %w", err)
		}
	case p.After.Kind == CursorHeight:
		err := queryRow(ctx, c, "SELECT last_sequence FROM block WHERE height <= ? ORDER BY height DESC LIMIT 1", []any{p.After.Value}, &after)
		if errors.Is(err, ErrNotFound) {
			after, err = 0, nil
		}
		if err != nil {
			return 0, fmt.Errorf("resolve height cursor: %w", err)
		}
	}
	return after, nil
}

// scanTxs reads (sequence, height, data) rows; hint is how many rows to expect (the page's
// limit). Each row's JSON is read as the driver's own bytes (sql.RawBytes, pgx's DriverBytes:
// no copy by database/sql or pgx) and appended to one buffer shared by the page, sized after
// the first row, instead of a copy per row: a list page was copied three times on SQLite
// (driver, database/sql, the API's body) and twice on PostgreSQL, in 20 allocations each.
func scanTxs(r sqldb.Rows, hint int) ([]TxRecord, error) {
	defer r.Close()
	cols := sqldb.NewRawCols(r, 1)
	out := []TxRecord{}
	var buf []byte
	var ends []int
	for r.Next() {
		var t TxRecord
		if err := r.Scan(&t.Sequence, &t.Height, cols.Dest(0)); err != nil {
			return nil, err
		}
		data := cols.Get(0)
		if buf == nil {
			// Room for the expected rows at the first one's size and a quarter more, up to 20
			// rows (a default limit of 100 often returns a few: past 20 the buffer doubles).
			n := min(max(hint, 1), 20)
			buf = make([]byte, 0, len(data)*n+len(data)*n/4)
			out = make([]TxRecord, 0, n)
		}
		buf = append(buf, data...)
		ends = append(ends, len(buf))
		out = append(out, t)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	// Sliced once the buffer stopped moving; each record's capacity ends with it, so an
	// append to one record's JSON cannot write into the next.
	start := 0
	for i, end := range ends {
		out[i].JSON = buf[start:end:end]
		start = end
	}
	return out, nil
}

// TxCount returns the number of txs stored up to the indexed height. Sequences are dense
// from 1 and the writer records the last one in indexed_height in the same transaction as the
// txs, so the count is that counter: one primary-key row (or the cached state), never a scan.
func (d *DB) TxCount(ctx context.Context) (int64, error) {
	return readRetrying(ctx, d, func() (int64, error) {
		st, err := d.readerState(ctx, d.be.Reader())
		return st.lastSequence, err
	})
}
