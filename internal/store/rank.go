package store

// Rank buckets: offset pages of long ordered lists without walking every earlier row. A list
// (one collection's or one owner's live tokens, migration 0005; one denom's holders, migration
// 0006) is cut into buckets of consecutive keys; a bucket row holds its first key and how many
// rows of the list fall in it. An offset then resolves to a bucket by summing the counts (a few
// hundred rows for a list of 100,000, about a thousand for 1,000,000) and to a row by a seek to
// the bucket's first key and a skip of at most 2*rankBucketSize index entries. A dense rank per row
// would give an exact seek, but an insert early in the order (a mint, a balance change) would
// renumber every later row; a bucket count changes by one. Buckets split when they pass
// 2*rankBucketSize and are dropped when empty; the counts are exact at every committed height
// because they change in the same transaction as the rows they count (rankwrite.go).

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// rankBucketSize is the size a bucket is split to; a variable so the tests split small lists.
var rankBucketSize int64 = 1000

// rankList is one kind of list: its bucket table, the listed table and the order.
type rankList struct {
	table string   // the bucket table
	scope []string // the bucket table's columns naming one list (the caller passes their values)
	src   string   // the listed table and its alias, e.g. "nft n"
	// srcScope are the scope's columns in src, in scope's order ("": a bucket-table column
	// only, like the NFT lists' kind).
	srcScope []string
	// cols are the bucket table's key columns in list order (all ascending), srcCols the same
	// columns in src, types their Go types: 'i' int64, 's' string, 'b' []byte.
	cols, srcCols []string
	types         string
	// seek are the key columns a seek bounds: exactly the src index's columns after the scope
	// (a row-value bound on the index's own columns is what both databases turn into a seek;
	// in one collection a token_id alone is unique already).
	seek []int
}

// first is the key below every real key: the first bucket of each list starts there.
func (l rankList) first() []any {
	out := make([]any, len(l.types))
	for i, t := range l.types {
		switch t {
		case 'i':
			out[i] = int64(-1)
		case 's':
			out[i] = ""
		default:
			out[i] = []byte{}
		}
	}
	return out
}

// scanKey returns scan targets for a key.
func (l rankList) scanKey() []any {
	out := make([]any, len(l.types))
	for i, t := range l.types {
		switch t {
		case 'i':
			out[i] = new(int64)
		case 's':
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

func (l rankList) cmpKey(a, b []any) int {
	for i := range a {
		var r int
		switch x := a[i].(type) {
		case int64:
			r = cmp.Compare(x, b[i].(int64))
		case string:
			r = cmp.Compare(x, b[i].(string)) // byte order: SQLite BINARY, PostgreSQL "C"
		case []byte:
			r = bytes.Compare(x, b[i].([]byte))
		}
		if r != 0 {
			return r
		}
	}
	return 0
}

// scopeWhere is the bucket table's condition naming one list.
func (l rankList) scopeWhere() string {
	return strings.Join(l.scope, " = ? AND ") + " = ?"
}

// orderBy orders the bucket table's key columns (desc: backwards).
func (l rankList) orderBy(cols []string, desc bool) string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c + " " + dir(desc)
	}
	return strings.Join(out, ", ")
}

// rankSnap is one list's buckets in list order as of one indexed height.
type rankSnap struct {
	height int64
	lo     [][]any
	n      []int64
}

// load reads the buckets of the list l of scope, and in the same statement (so of the same
// snapshot) the indexed height.
func (l rankList) load(ctx context.Context, c sqldb.Conn, scope []any) (*rankSnap, error) {
	cols := make([]string, len(l.cols))
	for i, col := range l.cols {
		cols[i] = "COALESCE(b." + col + ", ?)"
	}
	on := make([]string, len(l.scope))
	for i, col := range l.scope {
		on[i] = "b." + col + " = ?"
	}
	b := make([]string, len(l.cols))
	for i, col := range l.cols {
		b[i] = "b." + col
	}
	args := append(l.first(), scope...)
	r, err := c.Query(ctx, "SELECT s.height, "+strings.Join(cols, ", ")+", COALESCE(b.n, -1) FROM indexed_height s LEFT JOIN "+l.table+
		" b ON "+strings.Join(on, " AND ")+" WHERE s.id = 1 ORDER BY "+l.orderBy(b, false), args...)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	snap := &rankSnap{}
	for r.Next() {
		lo, n := l.scanKey(), int64(0)
		if err := r.Scan(append(append([]any{&snap.height}, lo...), &n)...); err != nil {
			return nil, err
		}
		if n >= 0 { // -1: the list has no bucket (the LEFT JOIN's one row)
			snap.lo, snap.n = append(snap.lo, derefKey(lo)), append(snap.n, n)
		}
	}
	return snap, r.Err()
}

// rankSeek is seekSnap on the buckets as stored now.
func (l rankList) rankSeek(ctx context.Context, c sqldb.Conn, scope []any, offset int64, limit int, desc bool) (where []string, args []any, rest int64, ok bool, err error) {
	snap, err := l.load(ctx, c, scope)
	if err != nil {
		return nil, nil, 0, false, err
	}
	where, args, rest, ok = l.seekSnap(snap, offset, limit, desc)
	return where, args, rest, ok, nil
}

// seekSnap turns an offset into the list into row-value bounds on the src index and a shorter
// offset: the bucket the offset falls in is found by summing counts, and the page is looked
// for between that bucket's first key and the first key of the bucket after the last one the
// page can reach (walking in the page's direction). Both bounds matter: PostgreSQL may fetch
// every row in range before its sort, so the range holds a few buckets, not the rest of the
// list. ok is false when the list has no buckets.
func (l rankList) seekSnap(snap *rankSnap, offset int64, limit int, desc bool) (where []string, args []any, rest int64, ok bool) {
	type bucket struct {
		lo []any
		n  int64
	}
	bs := make([]bucket, len(snap.lo)) // in the page's direction
	for i := range snap.lo {
		k := i
		if desc {
			k = len(snap.lo) - 1 - i
		}
		bs[i] = bucket{snap.lo[k], snap.n[k]}
	}
	if len(bs) == 0 {
		return nil, nil, 0, false
	}
	i, cum := 0, int64(0)
	for ; i < len(bs) && cum+bs[i].n <= offset; i++ {
		cum += bs[i].n
	}
	if i == len(bs) {
		return []string{"1 = 0"}, nil, 0, true // past the end: the empty page
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
	return where, args, rest, true
}

// rankReads keeps the buckets of the lists the API read last, each with the indexed height it
// was read at: a deep page of a long list then costs its seek alone, not a read of every bucket
// (1,000,000 holders are ~700 buckets, read through the driver in ~2.4 ms). A page query reads
// the indexed height in its own statement and the buckets are reread when it moved, so a page
// never mixes buckets of one height with rows of another.
type rankReads struct {
	mu sync.Mutex
	m  map[string]*rankSnap
}

// rankReadsMax bounds the lists kept; past it the map starts over.
const rankReadsMax = 256

func (rr *rankReads) get(key string) *rankSnap {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	return rr.m[key]
}

func (rr *rankReads) put(key string, s *rankSnap) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if old := rr.m[key]; old != nil && old.height > s.height {
		return // a slower reader of an older height
	}
	if rr.m == nil || len(rr.m) >= rankReadsMax {
		rr.m = map[string]*rankSnap{}
	}
	rr.m[key] = s
}

// clear forgets every list kept (a write that changed lists without moving the height).
func (rr *rankReads) clear() {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	rr.m = nil
}

// bound is a row-value condition on the seek columns of the list.
func (l rankList) bound(op string, key []any) (string, []any) {
	var cols []string
	var args []any
	for _, i := range l.seek {
		cols = append(cols, l.srcCols[i])
		args = append(args, key[i])
	}
	if len(cols) == 1 {
		return cols[0] + " " + op + " ?", args
	}
	return "(" + strings.Join(cols, ", ") + ") " + op + " (" + placeholders(len(cols)) + ")", args
}
