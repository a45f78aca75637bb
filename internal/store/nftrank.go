package store

// Rank buckets of the token lists (migration 0005). A list — one collection's or one owner's
// live tokens, in token_id or height order — is cut into buckets of consecutive keys; a bucket
// row holds its first key and its live token count. An offset then resolves to a bucket by
// summing the counts (a few hundred rows for a list of 100,000 tokens) and to a row by a seek to
// the bucket's first key and a skip of at most 2*nftRankBucket index entries. A dense rank per
// token would give an exact seek, but a mint or burn early in the order would renumber every
// later token; a bucket count changes by one. Buckets split when they pass 2*nftRankBucket and
// are dropped when empty; the counts are exact at every committed height because they change in
// the same transaction as the nft rows.

import (
	"context"
	"fmt"
	"strings"
)

// nftRankBucket is the size a bucket is split to; a variable so the tests split small lists.
var nftRankBucket int64 = 1000

// rankList is one kind of list: the bucket table, the scope's column in nft, and the order.
type rankList struct {
	table string
	kind  int    // 0: collection, 1: owner
	scope string // nft column naming the list
	// cols orders the list (the bucket table's key columns after kind and scope, same order).
	cols []string
	// seek is the part of cols the nft index of the list orders by after scope: in one
	// collection a token_id (or height, token_id) is unique already, and a row-value bound on
	// exactly the index's columns is what both databases turn into an index seek.
	seek []string
}

var (
	rankCollToken  = rankList{"nft_rank_token", 0, "collection_addr", []string{"token_id", "height", "coll"}, []string{"token_id"}}
	rankCollHeight = rankList{"nft_rank_height", 0, "collection_addr", []string{"height", "token_id", "coll"}, []string{"height", "token_id"}}
	rankOwnToken   = rankList{"nft_rank_token", 1, "owner", []string{"token_id", "height", "coll"}, []string{"token_id", "height", "coll"}}
	rankOwnHeight  = rankList{"nft_rank_height", 1, "owner", []string{"height", "token_id", "coll"}, []string{"height", "token_id", "coll"}}
	rankLists      = []rankList{rankCollToken, rankCollHeight, rankOwnToken, rankOwnHeight}
)

// rankKey is one live token as the rank buckets see it.
type rankKey struct {
	coll, owner []byte
	tokenID     string
	height      int64
}

func (l rankList) scopeOf(k rankKey) []byte {
	if l.kind == 0 {
		return k.coll
	}
	return k.owner
}

// vals returns the key's values in the order of l.cols.
func (l rankList) vals(k rankKey) []any {
	v := map[string]any{"token_id": k.tokenID, "height": k.height, "coll": nonNil(k.coll)}
	out := make([]any, len(l.cols))
	for i, c := range l.cols {
		out[i] = v[c]
	}
	return out
}

// first is the key below every real key: the first bucket of each list starts there.
func (l rankList) first() []any {
	if l.cols[0] == "height" {
		return []any{int64(-1), "", []byte{}}
	}
	return []any{"", int64(-1), []byte{}}
}

// nftCol names a rank column in the nft table.
func nftCol(c string) string {
	if c == "coll" {
		return "n.collection_addr"
	}
	return "n." + c
}

// scanKey returns scan targets for a key in l.cols order.
func (l rankList) scanKey() []any {
	out := make([]any, 3)
	for i, c := range l.cols {
		switch c {
		case "height":
			out[i] = new(int64)
		case "token_id":
			out[i] = new(string)
		default:
			out[i] = new([]byte)
		}
	}
	return out
}

func derefKey(ptrs []any) []any {
	out := make([]any, len(ptrs))
	for i, p := range ptrs {
		switch p := p.(type) {
		case *int64:
			out[i] = *p
		case *string:
			out[i] = *p
		case *[]byte:
			out[i] = nonNil(*p)
		}
	}
	return out
}

func sameKey(a, b []any) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

// rankSeek turns an offset into the list l of scope into row-value bounds on the nft index and
// a shorter offset: the bucket the offset falls in is found by summing counts, and the page is
// looked for between that bucket's first key and the first key of the bucket after the last one
// the page can reach (walking in the page's direction). Both bounds matter: PostgreSQL may fetch
// every row in range before its sort, so the range holds a few buckets, not the rest of the list.
// ok is false when the list has no buckets.
func (l rankList) rankSeek(ctx context.Context, c conn, scope []byte, offset int64, limit int, desc bool) (where []string, args []any, rest int64, ok bool, err error) {
	r, err := c.query(ctx, "SELECT "+l.cols[0]+", "+l.cols[1]+", "+l.cols[2]+", n FROM "+l.table+
		" WHERE kind = ? AND scope = ? ORDER BY "+l.cols[0]+" "+dir(desc)+", "+l.cols[1]+" "+dir(desc)+", "+l.cols[2]+" "+dir(desc), l.kind, nonNil(scope))
	if err != nil {
		return nil, nil, 0, false, err
	}
	type bucket struct {
		lo []any
		n  int64
	}
	var bs []bucket // in the page's direction
	for r.Next() {
		lo, n := l.scanKey(), int64(0)
		if err := r.Scan(append(lo, &n)...); err != nil {
			r.Close()
			return nil, nil, 0, false, err
		}
		bs = append(bs, bucket{derefKey(lo), n})
	}
	r.Close()
	if err := r.Err(); err != nil || len(bs) == 0 {
		return nil, nil, 0, false, err
	}
	i, cum := 0, int64(0)
	for ; i < len(bs) && cum+bs[i].n <= offset; i++ {
		cum += bs[i].n
	}
	if i == len(bs) {
		return []string{"1 = 0"}, nil, 0, true, nil // past the end: the empty page
	}
	rest = offset - cum
	j, acc := i, int64(0)
	for ; j < len(bs) && acc < rest+int64(limit); j++ {
		acc += bs[j].n
	}
	// Buckets i..j-1 hold the page. Ascending, they span [lo_i, lo_j); descending (bs runs
	// backwards), [lo_{j-1}, lo_{i-1}).
	var lower, upper []any
	if desc {
		lower = bs[j-1].lo
		if i > 0 {
			upper = bs[i-1].lo
		}
	} else {
		lower = bs[i].lo
		if j < len(bs) {
			upper = bs[j].lo
		}
	}
	if lower != nil && !sameKey(lower, l.first()) {
		w, a := l.bound(">=", lower)
		where, args = append(where, w), append(args, a...)
	}
	if upper != nil {
		w, a := l.bound("<", upper)
		where, args = append(where, w), append(args, a...)
	}
	return where, args, rest, true, nil
}

// bound is a row-value condition on the seek columns of the list.
func (l rankList) bound(op string, key []any) (string, []any) {
	var cols []string
	var args []any
	for _, s := range l.seek {
		for i, c := range l.cols {
			if c == s {
				cols = append(cols, nftCol(c))
				args = append(args, key[i])
			}
		}
	}
	if len(cols) == 1 {
		return cols[0] + " " + op + " ?", args
	}
	return "(" + strings.Join(cols, ", ") + ") " + op + " (" + placeholders(len(cols)) + ")", args
}
