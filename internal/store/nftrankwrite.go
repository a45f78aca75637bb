package store

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
)

// rankCache holds the rank buckets of the lists one write transaction touches, loaded once per
// list and written back by flush: a busy block changes the same few lists many times, and a
// statement per change and list made NFT ingest several times slower.
type rankCache struct {
	tx    wtx
	lists map[string]*rankState // table \x00 kind \x00 scope
	order []string              // keys in first-touch order, so flush writes deterministically
}

type rankBucket struct {
	lo     []any
	n      int64
	stored int64 // n as in the table; -1: not in the table
}

type rankState struct {
	l       rankList
	scope   []byte
	buckets []rankBucket // ascending by lo; buckets[0] is the list's first key
	dropped [][]any      // stored buckets removed by this transaction
}

func newRankCache(tx wtx) *rankCache { return &rankCache{tx: tx, lists: map[string]*rankState{}} }

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

func (rc *rankCache) state(ctx context.Context, l rankList, scope []byte) (*rankState, error) {
	key := l.table + "\x00" + fmt.Sprint(l.kind) + "\x00" + string(scope)
	if st, ok := rc.lists[key]; ok {
		return st, nil
	}
	st := &rankState{l: l, scope: scope}
	r, err := rc.tx.query(ctx, "SELECT "+l.cols[0]+", "+l.cols[1]+", "+l.cols[2]+", n FROM "+l.table+
		" WHERE kind = ? AND scope = ? ORDER BY "+l.cols[0]+", "+l.cols[1]+", "+l.cols[2], l.kind, scope)
	if err != nil {
		return nil, fmt.Errorf("rank buckets: %w", err)
	}
	for r.Next() {
		lo, n := l.scanKey(), int64(0)
		if err := r.Scan(append(lo, &n)...); err != nil {
			r.Close()
			return nil, fmt.Errorf("rank buckets: %w", err)
		}
		st.buckets = append(st.buckets, rankBucket{lo: derefKey(lo), n: n, stored: n})
	}
	r.Close()
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("rank buckets: %w", err)
	}
	if len(st.buckets) == 0 {
		st.buckets = []rankBucket{{lo: l.first(), stored: -1}}
	}
	rc.lists[key] = st
	rc.order = append(rc.order, key)
	return st, nil
}

// find returns the index of the bucket holding key k (the last whose first key is ≤ k).
func (st *rankState) find(k []any) int {
	i, _ := slices.BinarySearchFunc(st.buckets, k, func(b rankBucket, k []any) int {
		if st.l.cmpKey(b.lo, k) <= 0 {
			return -1
		}
		return 1
	})
	return i - 1
}

// add counts a token that is now in the nft table, splitting its bucket when it grew past
// twice the bucket size (a bucket a migration filled with a whole list takes several cuts).
func (rc *rankCache) add(ctx context.Context, k rankKey) error {
	for _, l := range rankLists {
		st, err := rc.state(ctx, l, nonNil(l.scopeOf(k)))
		if err != nil {
			return err
		}
		i := st.find(l.vals(k))
		st.buckets[i].n++
		for st.buckets[i].n > 2*nftRankBucket {
			next, err := rc.nthKey(ctx, st, st.buckets[i].lo, nftRankBucket)
			if err != nil {
				return fmt.Errorf("split rank bucket: %w", err)
			}
			rest := st.buckets[i].n - nftRankBucket
			st.buckets[i].n = nftRankBucket
			nb := rankBucket{lo: next, n: rest, stored: -1}
			for di, d := range st.dropped {
				if l.cmpKey(d, next) == 0 {
					// Emptied and dropped earlier in this transaction: the row is
					// still there, so it is updated instead.
					nb.stored = 0
					st.dropped = slices.Delete(st.dropped, di, di+1)
					break
				}
			}
			st.buckets = slices.Insert(st.buckets, i+1, nb)
			i++
		}
	}
	return nil
}

// nthKey reads the key at offset n from lo in the list (the bucket's rows are the first ones
// from lo, so this is inside it).
func (rc *rankCache) nthKey(ctx context.Context, st *rankState, lo []any, n int64) ([]any, error) {
	cols := make([]string, 3)
	for i, c := range st.l.cols {
		cols[i] = nftCol(c)
	}
	list := cols[0] + ", " + cols[1] + ", " + cols[2]
	r, err := rc.tx.query(ctx, "SELECT "+list+" FROM nft n WHERE n."+st.l.scope+" = ? AND ("+list+") >= (?, ?, ?) ORDER BY "+list+" LIMIT 1 OFFSET ?",
		append(append([]any{st.scope}, lo...), n)...)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if !r.Next() {
		return nil, fmt.Errorf("a bucket counts more tokens than the list holds past %v", lo)
	}
	k := st.l.scanKey()
	if err := r.Scan(k...); err != nil {
		return nil, err
	}
	return derefKey(k), r.Err()
}

// del uncounts a token that left the nft table or changed its key; an emptied bucket other
// than a list's first is dropped.
func (rc *rankCache) del(ctx context.Context, k rankKey) error {
	for _, l := range rankLists {
		st, err := rc.state(ctx, l, nonNil(l.scopeOf(k)))
		if err != nil {
			return err
		}
		i := st.find(l.vals(k))
		if st.buckets[i].n <= 0 {
			return fmt.Errorf("rank bucket: token %q of a list with no count", k.tokenID)
		}
		st.buckets[i].n--
		if st.buckets[i].n == 0 && i > 0 {
			if st.buckets[i].stored >= 0 {
				st.dropped = append(st.dropped, st.buckets[i].lo)
			}
			st.buckets = slices.Delete(st.buckets, i, i+1)
		}
	}
	return nil
}

// flush writes the changed buckets back.
func (rc *rankCache) flush(ctx context.Context) error {
	for _, key := range rc.order {
		st := rc.lists[key]
		l := st.l
		where := "kind = ? AND scope = ? AND " + l.cols[0] + " = ? AND " + l.cols[1] + " = ? AND " + l.cols[2] + " = ?"
		for _, lo := range st.dropped {
			if err := rc.tx.exec(ctx, "DELETE FROM "+l.table+" WHERE "+where, append([]any{l.kind, st.scope}, lo...)...); err != nil {
				return fmt.Errorf("rank buckets: %w", err)
			}
		}
		for _, b := range st.buckets {
			switch {
			case b.stored < 0:
				if err := rc.tx.exec(ctx, "INSERT INTO "+l.table+" (kind, scope, "+l.cols[0]+", "+l.cols[1]+", "+l.cols[2]+", n) VALUES (?, ?, ?, ?, ?, ?)",
					append(append([]any{l.kind, st.scope}, b.lo...), b.n)...); err != nil {
					return fmt.Errorf("rank buckets: %w", err)
				}
			case b.stored != b.n:
				if err := rc.tx.exec(ctx, "UPDATE "+l.table+" SET n = ? WHERE "+where, append([]any{b.n, l.kind, st.scope}, b.lo...)...); err != nil {
					return fmt.Errorf("rank buckets: %w", err)
				}
			}
		}
	}
	return nil
}
