package store

import (
	"context"
	"sync"
	"time"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// stateTTL is how long the API side reuses the indexed_height row it last read. Every list
// request needs it (the dense-key arithmetic and the totals), and reading it was a database
// round trip of its own before each page query. This process's own writes replace the cached
// row when they commit, so a reader in the writing process never sees an older height than
// the writer committed; a writer in another process (a separate `serve` on the same
// PostgreSQL) becomes visible within stateTTL, well inside the lists' 1 s Cache-Control.
const stateTTL = 100 * time.Millisecond

// stateCache holds the last indexed_height row read or written by this DB.
type stateCache struct {
	mu sync.Mutex
	s  state
	at time.Time // zero: nothing cached
}

// get returns the cached row if it is younger than stateTTL.
func (c *stateCache) get(now time.Time) (state, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at.IsZero() || now.Sub(c.at) >= stateTTL {
		return state{}, false
	}
	return c.s, true
}

// put stores a row read at (or committed by) time at. The stored chain only grows, so a row
// older than the cached one (a read that started before a commit and finished after it) never
// replaces it.
func (c *stateCache) put(s state, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && (s.height < c.s.height || s.lastSequence < c.s.lastSequence) {
		return
	}
	c.s = s
	if at.After(c.at) {
		c.at = at
	}
}

// readerState is readState for the API side, through the cache.
func (d *DB) readerState(ctx context.Context, c sqldb.Conn) (state, error) {
	start := time.Now()
	if s, ok := d.state.get(start); ok {
		return s, nil
	}
	s, err := readState(ctx, c, "")
	if err != nil {
		return s, err
	}
	// Stamped with the time the read started: the row is at least that fresh.
	d.state.put(s, start)
	return s, nil
}

// reset forgets the cached row: the store was emptied (Reset), the one time its chain shrinks.
func (c *stateCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.s, c.at = state{}, time.Time{}
}
