package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// seqList is one list of a table whose rows carry a dense global 1-based sequence (columns
// sequence, height, data), in one of two shapes, both answered by keyset reads only:
//
//   - dense: the contiguous range [lo, hi] of sequences (every row, one height, one tx's
//     internal calls), so an offset or a cursor is arithmetic on the primary key;
//   - ranked (edge != ""): the rows of one key in an edge table whose rows carry a dense
//     per-key rank (ord), so an offset is a rank range and the total is the key's counter.
type seqList struct {
	table string
	// data, when set, is the select expression of the item given the table's alias prefix
	// ("" or "t."); nil selects the data column.
	data   func(alias string) string
	lo, hi int64

	edge, key, ord string // edge table, its key column, its rank column
	cond           string // extra condition on the edge row e (e.g. " AND e.signer")
	keyVal         any
	n              int64 // rows of the key = its highest rank

	// bounded narrows a ranked list to the sequences seqLo..seqHi (a height range): its
	// offsets are skipped on the edge index and its total is a COUNT there.
	bounded      bool
	seqLo, seqHi int64
}

// dataExpr is the item's select expression, the table aliased by alias ("" or "t.").
func (l *seqList) dataExpr(alias string) string {
	if l.data == nil {
		return alias + "data"
	}
	return l.data(alias)
}

// heights narrows l to the rows of heights minH..maxH (0: open), found on the table's
// (height, sequence) index.
func (l *seqList) heights(ctx context.Context, c sqldb.Conn, minH, maxH int64) error {
	if maxH <= 0 {
		maxH = math.MaxInt64
	}
	var lo, hi sql.NullInt64
	if err := queryRow(ctx, c, "SELECT MIN(sequence), MAX(sequence) FROM "+l.table+" WHERE height BETWEEN ? AND ?", []any{minH, maxH}, &lo, &hi); err != nil {
		return fmt.Errorf("%s heights: %w", l.table, err)
	}
	a, b := int64(1), int64(0)
	if lo.Valid && hi.Valid {
		a, b = lo.Int64, hi.Int64
	}
	if l.edge == "" {
		l.lo, l.hi = max(l.lo, a), min(l.hi, b)
		return nil
	}
	l.bounded, l.seqLo, l.seqHi = true, a, b
	if b < a {
		l.n = 0
		return nil
	}
	var n int64
	if err := queryRow(ctx, c, "SELECT COUNT(*) FROM "+l.edge+" e WHERE e."+l.key+" = ?"+l.cond+" AND e.sequence BETWEEN ? AND ?",
		[]any{l.keyVal, a, b}, &n); err != nil {
		return fmt.Errorf("%s heights: %w", l.edge, err)
	}
	l.n = n
	return nil
}

// rangeOf makes l the dense range of the rows whose col equals v (empty when none).
func (l *seqList) rangeOf(ctx context.Context, c sqldb.Conn, col string, v any) error {
	var lo, hi sql.NullInt64
	if err := queryRow(ctx, c, "SELECT MIN(sequence), MAX(sequence) FROM "+l.table+" WHERE "+col+" = ?", []any{v}, &lo, &hi); err != nil {
		return fmt.Errorf("%s range: %w", l.table, err)
	}
	l.lo, l.hi = 1, 0
	if lo.Valid && hi.Valid {
		l.lo, l.hi = lo.Int64, hi.Int64
	}
	return nil
}

// after turns the page's cursor into an exclusive sequence bound in page order. A height
// cursor means "after that block's rows", as on the Cosmos tx lists.
func (l *seqList) after(ctx context.Context, c sqldb.Conn, p Page) (int64, bool, error) {
	switch p.After.Kind {
	case CursorSequence:
		return p.After.Value, true, nil
	case CursorHeight:
		var s sql.NullInt64
		q := "SELECT MAX(sequence) FROM " + l.table + " WHERE height <= ?"
		if p.Desc {
			q = "SELECT MIN(sequence) FROM " + l.table + " WHERE height >= ?"
		}
		if err := queryRow(ctx, c, q, []any{p.After.Value}, &s); err != nil {
			return 0, false, fmt.Errorf("resolve height cursor: %w", err)
		}
		switch {
		case s.Valid:
			return s.Int64, true, nil
		case p.Desc:
			return math.MaxInt64, true, nil
		default:
			return 0, true, nil
		}
	}
	return 0, false, nil
}

func (l *seqList) page(ctx context.Context, c sqldb.Conn, p Page) (TxPage, error) {
	out := TxPage{Txs: []TxRecord{}}
	after, hasCursor, err := l.after(ctx, c, p)
	if err != nil {
		return TxPage{}, err
	}
	limit := limitOf(p)
	var q string
	var args []any
	if l.edge == "" {
		lo, hi := l.lo, l.hi
		if p.CountTotal && hi >= lo {
			out.Total = hi - lo + 1
		}
		switch {
		case hasCursor && p.Desc:
			hi = min(hi, after-1)
		case hasCursor:
			lo = max(lo, after+1)
		case p.Offset > hi-lo:
			return out, nil
		case p.Desc:
			hi -= p.Offset
		default:
			lo += p.Offset
		}
		if hi < lo {
			return out, nil
		}
		q = "SELECT sequence, height, " + l.dataExpr("") + " FROM " + l.table + " WHERE sequence BETWEEN ? AND ? ORDER BY sequence " + dir(p.Desc) + " LIMIT ?"
		args = []any{lo, hi, limit}
	} else {
		if p.CountTotal {
			out.Total = l.n
		}
		var sub string
		if l.bounded {
			if l.n == 0 {
				return out, nil
			}
			sub = "SELECT e.sequence AS sequence FROM " + l.edge + " e WHERE e." + l.key + " = ?" + l.cond + " AND e.sequence BETWEEN ? AND ?"
			args = []any{l.keyVal, l.seqLo, l.seqHi}
			offset := p.Offset
			if hasCursor {
				op := ">"
				if p.Desc {
					op = "<"
				}
				sub += " AND e.sequence " + op + " ?"
				args = append(args, after)
				offset = 0
			}
			sub += " ORDER BY e.sequence " + dir(p.Desc) + " LIMIT ? OFFSET ?"
			args = append(args, limit, offset)
		} else if hasCursor {
			op := ">"
			if p.Desc {
				op = "<"
			}
			sub = "SELECT e.sequence AS sequence FROM " + l.edge + " e WHERE e." + l.key + " = ?" + l.cond +
				" AND e.sequence " + op + " ? ORDER BY e.sequence " + dir(p.Desc) + " LIMIT ?"
			args = []any{l.keyVal, after, limit}
		} else {
			if p.Offset >= l.n {
				return out, nil
			}
			a, b := int64(1), l.n
			if p.Desc {
				b -= p.Offset
			} else {
				a += p.Offset
			}
			sub = "SELECT e.sequence AS sequence FROM " + l.edge + " e WHERE e." + l.key + " = ? AND e." + l.ord +
				" BETWEEN ? AND ? ORDER BY e." + l.ord + " " + dir(p.Desc) + " LIMIT ?"
			args = []any{l.keyVal, a, b, limit}
		}
		q = "SELECT t.sequence, t.height, " + l.dataExpr("t.") + " FROM " + l.table + " t JOIN (" + sub + ") s ON t.sequence = s.sequence ORDER BY t.sequence " + dir(p.Desc)
	}
	r, err := c.Query(ctx, q, args...)
	if err != nil {
		return TxPage{}, fmt.Errorf("%s list: %w", l.table, err)
	}
	if out.Txs, err = scanTxs(r, limit); err != nil {
		return TxPage{}, fmt.Errorf("%s list: %w", l.table, err)
	}
	// Of final.go's rules only the full ascending page applies here: these tables are
	// appended to in sequence order too, but their heads (e.g. internal_tx_height) are not
	// all read here, so a descending cursor page cannot be told apart from one above the head.
	out.Final = !p.CountTotal && !p.Desc && len(out.Txs) == limit
	return out, nil
}
