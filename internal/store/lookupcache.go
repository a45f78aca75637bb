package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// lookupCacheSize bounds the entries of a lookupCache; when full it starts over. Lookups are
// keyed by request input (addresses, msgs lists, heights), so the bound is what keeps a client
// walking many accounts from growing it.
const lookupCacheSize = 8192

// lookupCache keeps the answers of the small lookups a filtered tx list makes before its page
// query (the account's dictionary row, the msgs types' rows, a height's sequence range), so a
// list request is one database round trip. Entries belong to one indexed_height row (gen) and
// are dropped as soon as a newer row is seen: the counters they carry grow with every write.
// An entry is always read after its gen, so it is at least as new as the row the request
// computes with, as it was when each request read it from the database.
type lookupCache struct {
	mu   sync.Mutex
	gen  state
	n    int
	acc  map[string]*dictEntry  // nil: unknown account
	msgs map[string][]dictEntry // by the request's type list
	blk  map[int64][2]int64     // height → first, last sequence; {1, 0}: no such block
}

// use returns whether entries for st may be read and stored, resetting the cache for a newer st.
func (c *lookupCache) use(st state) bool {
	switch {
	case c.acc != nil && st == c.gen && c.n < lookupCacheSize:
		return true
	case c.acc != nil && (st.lastSequence < c.gen.lastSequence || st.height < c.gen.height):
		return false // a request still computing with an older row
	}
	c.gen, c.n = st, 0
	c.acc, c.msgs, c.blk = map[string]*dictEntry{}, map[string][]dictEntry{}, map[int64][2]int64{}
	return true
}

func (d *DB) cachedAccount(ctx context.Context, c sqldb.Conn, st state, addr []byte) (*dictEntry, error) {
	d.lookups.mu.Lock()
	if d.lookups.use(st) {
		if e, ok := d.lookups.acc[string(addr)]; ok {
			d.lookups.mu.Unlock()
			return e.clone(), nil
		}
	}
	d.lookups.mu.Unlock()
	e, err := lookupAccount(ctx, c, addr)
	if err != nil {
		return nil, err
	}
	d.lookups.mu.Lock()
	if d.lookups.use(st) {
		d.lookups.acc[string(addr)] = e.clone()
		d.lookups.n++
	}
	d.lookups.mu.Unlock()
	return e, nil
}

func (e *dictEntry) clone() *dictEntry {
	if e == nil {
		return nil
	}
	c := *e
	return &c
}

func (d *DB) cachedMsgTypes(ctx context.Context, c sqldb.Conn, st state, types []string) ([]dictEntry, error) {
	key := strings.Join(types, "\x00")
	d.lookups.mu.Lock()
	if d.lookups.use(st) {
		if es, ok := d.lookups.msgs[key]; ok {
			d.lookups.mu.Unlock()
			return append([]dictEntry(nil), es...), nil
		}
	}
	d.lookups.mu.Unlock()
	es, err := lookupMsgTypes(ctx, c, types)
	if err != nil {
		return nil, err
	}
	d.lookups.mu.Lock()
	if d.lookups.use(st) {
		d.lookups.msgs[key] = append([]dictEntry(nil), es...)
		d.lookups.n++
	}
	d.lookups.mu.Unlock()
	return es, nil
}

// cachedHeightRange returns the sequence range of the block at height; ErrNotFound without one.
func (d *DB) cachedHeightRange(ctx context.Context, c sqldb.Conn, st state, height int64) (lo, hi int64, err error) {
	d.lookups.mu.Lock()
	if d.lookups.use(st) {
		if r, ok := d.lookups.blk[height]; ok {
			d.lookups.mu.Unlock()
			if r == [2]int64{1, 0} {
				return 0, 0, ErrNotFound
			}
			return r[0], r[1], nil
		}
	}
	d.lookups.mu.Unlock()
	err = queryRow(ctx, c, "SELECT first_sequence, last_sequence FROM block WHERE height = ?", []any{height}, &lo, &hi)
	r := [2]int64{lo, hi}
	switch {
	case errors.Is(err, ErrNotFound):
		r = [2]int64{1, 0}
	case err != nil:
		return 0, 0, fmt.Errorf("txs of height: %w", err)
	}
	d.lookups.mu.Lock()
	if d.lookups.use(st) {
		d.lookups.blk[height] = r
		d.lookups.n++
	}
	d.lookups.mu.Unlock()
	return lo, hi, err
}
