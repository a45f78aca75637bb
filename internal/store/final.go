package store

// Which list pages are final: an answer no later write can change, which the API may then
// serve as pinned (kept by the response cache, with an ETag). Writes only append: a new
// block's height and a new tx's sequence are above every stored one, stored blocks and txs
// are never rewritten, and first_height is fixed by the first write. So a page made of stored
// positions only, into which no later row can sort, is fixed for good:
//
//   - one stored height's txs, whatever the page (its rows and its total are that block's);
//   - otherwise never with a total, which grows with the chain;
//   - ascending, once full: later rows sort after its last row, and the rows before it are
//     all stored;
//   - descending from a cursor at or below the head: every position below the cursor is
//     stored and later rows sort above it. A descending offset page counts from the head, and
//     a cursor above the head still has rows to come, so neither is final.
//
// The EVM and internal tx lists (seqlist.go) use the full-ascending-page rule only.
//
// A block list's sequence cursor is resolved through the tx table and names a different
// block once that sequence is written, so such pages are never final.

// final applies the rules to a tx page of n rows (q resolved against the state st).
func (q *txQuery) final(n int) bool {
	switch {
	case q.f.Height != 0:
		return q.f.Height <= q.st.height
	case q.p.CountTotal:
		return false
	case !q.p.Desc:
		return n > 0 && n == q.limit
	case q.p.After.Kind == CursorSequence:
		return q.p.After.Value <= q.st.lastSequence+1
	case q.p.After.Kind == CursorHeight:
		// The cursor resolves to the first tx of the block at that height, which must be stored.
		return q.p.After.Value <= q.st.height
	}
	return false
}

// blocksFinal applies the rules to a block page of n rows read at state st.
func blocksFinal(p Page, st state, n int) bool {
	switch {
	case p.CountTotal || p.After.Kind == CursorSequence:
		return false
	case !p.Desc:
		return n > 0 && n == limitOf(p)
	case p.After.Kind == CursorHeight:
		return p.After.Value <= st.height+1
	}
	return false
}
