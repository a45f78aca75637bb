package store

// The query plans of tx lists, one per shape of request, cheapest first:
//
//   - denseRange: no account and no msgs. Sequences are dense (1..last, or a block's
//     first..last), so a cursor or an offset is a primary-key range on tx and the total a
//     subtraction.
//   - rankRange: one account (optionally as signer) or one message type over all heights,
//     paged by offset. The edge rows carry a dense per-key rank (ord, signer_ord), so an offset
//     is a rank range on a unique index and the total is the dictionary's counter.
//   - rankSeek: the same keys paged by cursor: a seek on the edge table's (key, sequence)
//     primary key; the total is still the counter.
//   - typeMerge: several message types without an account: one ordered, bounded seek per type,
//     merged; the total a COUNT(DISTINCT) on the edge index.
//   - edgeSeek: everything else (an account with msgs, a key within one height): a cursor is a
//     seek on the edge table's primary key, an offset is skipped on that index alone (no tx row
//     is read for skipped entries; cost grows with the offset), the total a COUNT over the
//     same index.
//
// Every plan but denseRange picks the page's sequences from an edge table and joins only
// those to tx.

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// txPlan is one way of answering a tx list. total runs only when the page asks for it and
// ignores the cursor; page returns the rows, nil or empty when there are none.
type txPlan struct {
	name  string
	total func(ctx context.Context, c sqldb.Conn, q *txQuery) (int64, error)
	page  func(ctx context.Context, c sqldb.Conn, q *txQuery) ([]TxRecord, error)
}

var (
	denseRange = txPlan{"denseRange", denseTotal, densePage}
	rankRange  = txPlan{"rankRange", rankTotal, rankPage}
	rankSeek   = txPlan{"rankSeek", rankTotal, edgePage}
	typeMerge  = txPlan{"typeMerge", edgeCount, mergePage}
	edgeSeek   = txPlan{"edgeSeek", edgeCount, edgePage}
)

// txPlanFor picks the plan serving q's shape.
func txPlanFor(q *txQuery) txPlan {
	switch {
	case q.acc == nil && q.msgs == nil:
		return denseRange
	case q.rank() != nil && !q.hasCursor:
		return rankRange
	case q.rank() != nil:
		return rankSeek
	case q.acc == nil && len(q.msgs) > 1:
		return typeMerge
	}
	return edgeSeek
}

func (pl txPlan) run(ctx context.Context, c sqldb.Conn, q *txQuery) (TxPage, error) {
	out := TxPage{Txs: []TxRecord{}}
	if q.p.CountTotal {
		n, err := pl.total(ctx, c, q)
		if err != nil {
			return TxPage{}, fmt.Errorf("count txs: %w", err)
		}
		out.Total = n
	}
	txs, err := pl.page(ctx, c, q)
	if err != nil {
		return TxPage{}, fmt.Errorf("txs: %w", err)
	}
	if txs != nil {
		out.Txs = txs
	}
	return out, nil
}

func denseTotal(_ context.Context, _ sqldb.Conn, q *txQuery) (int64, error) {
	return q.fullHi - q.fullLo + 1, nil
}

func densePage(ctx context.Context, c sqldb.Conn, q *txQuery) ([]TxRecord, error) {
	a, b := q.lo, q.hi
	if !q.hasCursor {
		if q.p.Offset > q.hi-q.lo {
			return nil, nil
		}
		if q.p.Desc {
			b = q.hi - q.p.Offset
		} else {
			a = q.lo + q.p.Offset
		}
	}
	if b < a {
		return nil, nil
	}
	r, err := c.Query(ctx, "SELECT sequence, height, data FROM tx WHERE sequence BETWEEN ? AND ? ORDER BY sequence "+dir(q.p.Desc)+" LIMIT ?", a, b, q.limit)
	if err != nil {
		return nil, err
	}
	return scanTxs(r, q.limit)
}

// ranked is an edge table slice whose rows are ranked 1..n in sequence order by column ord.
type ranked struct {
	table, key, ord string
	id, n           int64
}

// ranged reports a filter narrowed to some heights (one height, or a range), whose sequences
// are the range lo..hi rather than every stored one.
func (q *txQuery) ranged() bool { return q.f.Height != 0 || q.f.MinHeight > 0 || q.f.MaxHeight > 0 }

// rank returns the ranked slice holding exactly the matches of q, or nil when no single one
// does (a height or heights, or an account combined with msgs, or several types).
func (q *txQuery) rank() *ranked {
	if q.ranged() {
		return nil
	}
	switch {
	case q.acc != nil && q.msgs == nil && q.f.SignerOnly:
		return &ranked{"tx_accounts", "account_id", "signer_ord", q.acc.id, q.acc.signerCount}
	case q.acc != nil && q.msgs == nil:
		return &ranked{"tx_accounts", "account_id", "ord", q.acc.id, q.acc.txCount}
	case q.acc == nil && len(q.msgs) == 1:
		return &ranked{"tx_msg_types", "msg_type_id", "ord", q.msgs[0].id, q.msgs[0].txCount}
	}
	return nil
}

func rankTotal(_ context.Context, _ sqldb.Conn, q *txQuery) (int64, error) {
	return q.rank().n, nil
}

func rankPage(ctx context.Context, c sqldb.Conn, q *txQuery) ([]TxRecord, error) {
	rk := q.rank()
	if q.hi < q.lo || q.p.Offset >= rk.n {
		return nil, nil
	}
	a, b := int64(1), rk.n
	if q.p.Desc {
		b -= q.p.Offset
	} else {
		a += q.p.Offset
	}
	sub := "SELECT e.sequence AS sequence FROM " + rk.table + " e WHERE e." + rk.key + " = ? AND e." + rk.ord +
		" BETWEEN ? AND ? ORDER BY e." + rk.ord + " " + dir(q.p.Desc) + " LIMIT ? OFFSET ?"
	return joinTxs(ctx, c, q, sub, []any{rk.id, a, b}, 0)
}

// edgeFilter is the filter as conditions on an edge table aliased e: tx_accounts for an
// account (its msgs an EXISTS on tx_msg_types), tx_msg_types otherwise.
func (q *txQuery) edgeFilter() (from string, where []string, args []any) {
	msgIn := func(alias string) string {
		for _, id := range q.msgIDs {
			args = append(args, id)
		}
		return alias + ".msg_type_id IN (" + placeholders(len(q.msgIDs)) + ")"
	}
	if q.acc == nil {
		in := msgIn("e")
		return "tx_msg_types e", []string{in}, args
	}
	where = []string{"e.account_id = ?"}
	args = []any{q.acc.id}
	if q.f.SignerOnly {
		where = append(where, "e.signer")
	}
	if q.msgIDs != nil {
		where = append(where, "EXISTS (SELECT 1 FROM tx_msg_types m WHERE m.sequence = e.sequence AND "+msgIn("m")+")")
	}
	return "tx_accounts e", where, args
}

func edgeCount(ctx context.Context, c sqldb.Conn, q *txQuery) (int64, error) {
	from, where, args := q.edgeFilter()
	if q.ranged() {
		where = append(where, "e.sequence BETWEEN ? AND ?")
		args = append(args, q.fullLo, q.fullHi)
	}
	cnt := "COUNT(*)"
	if q.acc == nil && len(q.msgIDs) > 1 {
		cnt = "COUNT(DISTINCT e.sequence)" // a tx holding two of the types has two rows
	}
	var n int64
	err := queryRow(ctx, c, "SELECT "+cnt+" FROM "+from+" WHERE "+strings.Join(where, " AND "), args, &n)
	return n, err
}

func edgePage(ctx context.Context, c sqldb.Conn, q *txQuery) ([]TxRecord, error) {
	if q.hi < q.lo {
		return nil, nil
	}
	from, where, args := q.edgeFilter()
	if q.ranged() || q.hasCursor {
		where = append(where, "e.sequence BETWEEN ? AND ?")
		args = append(args, q.lo, q.hi)
	}
	sub := "SELECT e.sequence AS sequence FROM " + from + " WHERE " + strings.Join(where, " AND ") +
		" ORDER BY e.sequence " + dir(q.p.Desc) + " LIMIT ? OFFSET ?"
	return joinTxs(ctx, c, q, sub, args, q.offset())
}

// mergePage seeks each type on (msg_type_id, sequence) for at most limit+offset rows and
// merges them: an IN list over that index cannot come out in sequence order, so the database
// would otherwise read every row of every named type and sort them.
func mergePage(ctx context.Context, c sqldb.Conn, q *txQuery) ([]TxRecord, error) {
	if q.hi < q.lo {
		return nil, nil
	}
	var parts []string
	var args []any
	for i, id := range q.msgIDs {
		part := "SELECT * FROM (SELECT e.sequence AS sequence FROM tx_msg_types e WHERE e.msg_type_id = ?"
		args = append(args, id)
		if q.ranged() || q.hasCursor {
			part += " AND e.sequence BETWEEN ? AND ?"
			args = append(args, q.lo, q.hi)
		}
		part += " ORDER BY e.sequence " + dir(q.p.Desc) + " LIMIT ?) AS u" + strconv.Itoa(i)
		args = append(args, satAdd(int64(q.limit), q.offset()))
		parts = append(parts, part)
	}
	sub := "SELECT DISTINCT m.sequence FROM (" + strings.Join(parts, " UNION ALL ") + ") AS m ORDER BY m.sequence " +
		dir(q.p.Desc) + " LIMIT ? OFFSET ?"
	return joinTxs(ctx, c, q, sub, args, q.offset())
}

// joinTxs reads the tx rows of the sequences sub selects; sub ends in "LIMIT ? OFFSET ?",
// bound here to the page's limit and offset.
func joinTxs(ctx context.Context, c sqldb.Conn, q *txQuery, sub string, args []any, offset int64) ([]TxRecord, error) {
	sql := "SELECT t.sequence, t.height, t.data FROM tx t JOIN (" + sub + ") s ON t.sequence = s.sequence ORDER BY t.sequence " + dir(q.p.Desc)
	r, err := c.Query(ctx, sql, append(args, q.limit, offset)...)
	if err != nil {
		return nil, err
	}
	return scanTxs(r, q.limit)
}
