package store

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// rankCache holds the rank buckets of the lists one write transaction touches, loaded once per
// list and written back by flush: a busy block changes the same few lists many times, and a
// statement per change and list made NFT ingest several times slower.
type rankCache struct {
	tx    sqldb.Tx
	lists map[string]*rankState // table \x00 scope values
	order []string              // keys in first-touch order, so flush writes deterministically
	// loaded holds the states preload read, which state takes over at their first touch (so
	// the flush order stays that of first touch).
	loaded map[string]*rankState
	// beforeSrc, when set, runs before a list's source table is read (a bucket split), so the
	// writes a caller holds back until the end of the transaction are in the table first.
	beforeSrc func(context.Context) error
}

type rankBucket struct {
	lo     []any
	n      int64
	stored int64 // n as in the table; -1: not in the table
}

type rankState struct {
	l       rankList
	scope   []any
	buckets []rankBucket // ascending by lo; buckets[0] is the list's first key
	dropped [][]any      // stored buckets removed by this transaction
}

func newRankCache(tx sqldb.Tx) *rankCache { return &rankCache{tx: tx, lists: map[string]*rankState{}} }

func (rc *rankCache) state(ctx context.Context, l rankList, scope []any) (*rankState, error) {
	key := l.table + "\x00" + fmt.Sprint(scope...)
	if st, ok := rc.lists[key]; ok {
		return st, nil
	}
	if st, ok := rc.loaded[key]; ok {
		delete(rc.loaded, key)
		rc.lists[key] = st
		rc.order = append(rc.order, key)
		return st, nil
	}
	st := &rankState{l: l, scope: scope}
	r, err := rc.tx.Query(ctx, "SELECT "+strings.Join(l.cols, ", ")+", n FROM "+l.table+
		" WHERE "+l.scopeWhere()+" ORDER BY "+l.orderBy(l.cols, false), scope...)
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

// preloadChunk bounds the lists one preload query reads.
const preloadChunk = 300

// preload reads the buckets of many lists of l in a few queries, for a writer that knows up
// front which lists it will touch: one query per list was a round trip each on PostgreSQL. The
// bucket tables change only at flush, so what it reads is what state would read later.
func (rc *rankCache) preload(ctx context.Context, l rankList, scopes [][]any) error {
	if rc.loaded == nil {
		rc.loaded = map[string]*rankState{}
	}
	want := map[string][]any{} // canonical scope → scope
	var todo [][]any
	for _, sc := range scopes {
		key := l.table + "\x00" + fmt.Sprint(sc...)
		c := canonScope(sc)
		if _, ok := rc.lists[key]; ok {
			continue
		}
		if _, ok := rc.loaded[key]; ok {
			continue
		}
		if _, ok := want[c]; ok {
			continue
		}
		want[c] = sc
		todo = append(todo, sc)
	}
	ns := len(l.scope)
	tuple := "(" + strings.TrimSuffix(strings.Repeat("?, ", ns), ", ") + ")"
	for start := 0; start < len(todo); start += preloadChunk {
		part := todo[start:min(len(todo), start+preloadChunk)]
		args := make([]any, 0, ns*len(part))
		for _, sc := range part {
			args = append(args, sc...)
		}
		args = padTuples(args, ns)
		sts := map[string]*rankState{}
		r, err := rc.tx.Query(ctx, "SELECT "+strings.Join(l.scope, ", ")+", "+strings.Join(l.cols, ", ")+", n FROM "+l.table+
			" WHERE ("+strings.Join(l.scope, ", ")+") IN ("+strings.TrimSuffix(strings.Repeat(tuple+", ", len(args)/ns), ", ")+")"+
			" ORDER BY "+strings.Join(l.scope, ", ")+", "+l.orderBy(l.cols, false), args...)
		if err != nil {
			return fmt.Errorf("rank buckets: %w", err)
		}
		for r.Next() {
			scv := make([]any, ns)
			dest := make([]any, ns)
			for i := range scv {
				dest[i] = &scv[i]
			}
			lo, n := l.scanKey(), int64(0)
			if err := r.Scan(append(append(dest, lo...), &n)...); err != nil {
				r.Close()
				return fmt.Errorf("rank buckets: %w", err)
			}
			c := canonScope(scv)
			sc, ok := want[c]
			if !ok {
				r.Close()
				return fmt.Errorf("rank buckets: %s row of a list not asked for", l.table)
			}
			st := sts[c]
			if st == nil {
				st = &rankState{l: l, scope: sc}
				sts[c] = st
			}
			st.buckets = append(st.buckets, rankBucket{lo: derefKey(lo), n: n, stored: n})
		}
		r.Close()
		if err := r.Err(); err != nil {
			return fmt.Errorf("rank buckets: %w", err)
		}
		for _, sc := range part {
			st := sts[canonScope(sc)]
			if st == nil {
				st = &rankState{l: l, scope: sc, buckets: []rankBucket{{lo: l.first(), stored: -1}}}
			}
			rc.loaded[l.table+"\x00"+fmt.Sprint(sc...)] = st
		}
	}
	return nil
}

// padTuples repeats the last tuple of width w in args until the tuples number a power of two:
// an IN list of repeated tuples matches the same rows, and the query texts (which the
// PostgreSQL layer caches rewritten) stay a few.
func padTuples(args []any, w int) []any {
	n := len(args) / w
	p := 1
	for p < n {
		p *= 2
	}
	if n == 0 || p == n {
		return args
	}
	out := slices.Grow(slices.Clip(args), (p-n)*w)
	last := args[len(args)-w:]
	for range p - n {
		out = append(out, last...)
	}
	return out
}

// canonScope writes scope values so that a value as the caller passed it and as the driver
// scanned it (any integer type, []byte or string) compare equal.
func canonScope(sc []any) string {
	var b strings.Builder
	for _, v := range sc {
		switch v := v.(type) {
		case int:
			fmt.Fprintf(&b, "i%d\x00", v)
		case int16:
			fmt.Fprintf(&b, "i%d\x00", v)
		case int32:
			fmt.Fprintf(&b, "i%d\x00", v)
		case int64:
			fmt.Fprintf(&b, "i%d\x00", v)
		case []byte:
			fmt.Fprintf(&b, "b%d:%s\x00", len(v), v)
		case string:
			fmt.Fprintf(&b, "s%d:%s\x00", len(v), v)
		default:
			fmt.Fprintf(&b, "?%v\x00", v)
		}
	}
	return b.String()
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

// add counts a row now in the list l of scope under key. A split reads the listed table, which
// must then agree with the counts: a writer that changes rows one at a time and counts each
// right after (the NFT writer) splits at once (now); one that writes a block's rows in bulk
// counts them all and lets flush split. Either way a bucket splits at a point that depends on
// the rows' history, not on how many blocks a transaction holds, so a store dumps the same
// after any batching (the crash test compares dumps).
func (rc *rankCache) add(ctx context.Context, l rankList, scope, key []any, now bool) error {
	st, err := rc.state(ctx, l, scope)
	if err != nil {
		return err
	}
	i := st.find(key)
	st.buckets[i].n++
	if now {
		return rc.splitAt(ctx, st, i)
	}
	return nil
}

// del uncounts a row that left the list or changed its key; an emptied bucket other than a
// list's first is dropped.
func (rc *rankCache) del(ctx context.Context, l rankList, scope, key []any) error {
	st, err := rc.state(ctx, l, scope)
	if err != nil {
		return err
	}
	i := st.find(key)
	if st.buckets[i].n <= 0 {
		return fmt.Errorf("rank bucket: %s key %v of a list with no count", l.table, key)
	}
	st.buckets[i].n--
	if st.buckets[i].n == 0 && i > 0 {
		if st.buckets[i].stored >= 0 {
			st.dropped = append(st.dropped, st.buckets[i].lo)
		}
		st.buckets = slices.Delete(st.buckets, i, i+1)
	}
	return nil
}

// splitAt cuts bucket i while it holds more than twice the bucket size (a bucket a migration
// filled with a whole list takes many cuts) at the key rankBucketSize rows after its first.
func (rc *rankCache) splitAt(ctx context.Context, st *rankState, i int) error {
	for st.buckets[i].n > 2*rankBucketSize {
		next, err := rc.nthKey(ctx, st, st.buckets[i].lo, rankBucketSize)
		if err != nil {
			return fmt.Errorf("split rank bucket: %w", err)
		}
		rest := st.buckets[i].n - rankBucketSize
		st.buckets[i].n = rankBucketSize
		nb := rankBucket{lo: next, n: rest, stored: -1}
		for di, d := range st.dropped {
			if st.l.cmpKey(d, next) == 0 {
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
	return nil
}

// nthKey reads the key at offset n from lo in the list (the bucket's rows are the first ones
// from lo, so this is inside it).
func (rc *rankCache) nthKey(ctx context.Context, st *rankState, lo []any, n int64) ([]any, error) {
	if rc.beforeSrc != nil {
		if err := rc.beforeSrc(ctx); err != nil {
			return nil, err
		}
	}
	l := st.l
	list := strings.Join(l.srcCols, ", ")
	var where []string
	var args []any
	for i, c := range l.srcScope {
		if c != "" {
			where, args = append(where, c+" = ?"), append(args, st.scope[i])
		}
	}
	r, err := rc.tx.Query(ctx, "SELECT "+list+" FROM "+l.src+" WHERE "+strings.Join(where, " AND ")+" AND ("+list+") >= ("+
		placeholders(len(lo))+") ORDER BY "+list+" LIMIT 1 OFFSET ?",
		append(append(args, lo...), n)...)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if !r.Next() {
		return nil, fmt.Errorf("a bucket of %s counts more rows than the list holds past %v", l.table, lo)
	}
	k := l.scanKey()
	if err := r.Scan(k...); err != nil {
		return nil, err
	}
	return derefKey(k), r.Err()
}

// rankUpsertChunk bounds the rows of one bucket upsert (SQLite's bound parameters).
const rankUpsertChunk = 500

// flush splits the grown buckets and writes the changed ones back, the new and changed
// buckets of a table in multi-row upserts (a block moving many balances of one denom changes
// many of its buckets). The cache stays valid after it, so a writer may flush once per block.
func (rc *rankCache) flush(ctx context.Context) error {
	type pending struct {
		l    rankList
		rows [][]any
	}
	var byTable []*pending
	for _, key := range rc.order {
		st := rc.lists[key]
		l := st.l
		for i := 0; i < len(st.buckets); i++ {
			if err := rc.splitAt(ctx, st, i); err != nil {
				return err
			}
		}
		keyCols := append(slices.Clone(l.scope), l.cols...)
		where := strings.Join(keyCols, " = ? AND ") + " = ?"
		for _, lo := range st.dropped {
			if err := rc.tx.Exec(ctx, "DELETE FROM "+l.table+" WHERE "+where, append(slices.Clone(st.scope), lo...)...); err != nil {
				return fmt.Errorf("rank buckets: %w", err)
			}
		}
		var p *pending
		for _, q := range byTable {
			if q.l.table == l.table {
				p = q
			}
		}
		if p == nil {
			p = &pending{l: l}
			byTable = append(byTable, p)
		}
		st.dropped = nil
		for i, b := range st.buckets {
			if b.stored != b.n {
				p.rows = append(p.rows, append(append(slices.Clone(st.scope), b.lo...), b.n))
				st.buckets[i].stored = b.n
			}
		}
	}
	for _, p := range byTable {
		keyCols := append(slices.Clone(p.l.scope), p.l.cols...)
		width := len(keyCols) + 1
		row := "(" + placeholders(width) + ")"
		for start := 0; start < len(p.rows); start += rankUpsertChunk {
			chunk := p.rows[start:min(start+rankUpsertChunk, len(p.rows))]
			args := make([]any, 0, width*len(chunk))
			for _, r := range chunk {
				args = append(args, r...)
			}
			q := "INSERT INTO " + p.l.table + " (" + strings.Join(keyCols, ", ") + ", n) VALUES " +
				strings.TrimSuffix(strings.Repeat(row+",", len(chunk)), ",") +
				" ON CONFLICT (" + strings.Join(keyCols, ", ") + ") DO UPDATE SET n = excluded.n"
			if err := rc.tx.Exec(ctx, q, args...); err != nil {
				return fmt.Errorf("rank buckets: %w", err)
			}
		}
	}
	return nil
}
