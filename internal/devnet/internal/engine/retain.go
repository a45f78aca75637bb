package engine

// Retention: with Config.RetainBlocks > 0 a chain keeps its last RetainBlocks blocks and the
// state versions that queries at those heights read, and drops the rest, as a pruned node
// does (CometBFT's retain height, the SDK's pruning of old IAVL versions). Memory then stays
// bounded however long the devnet runs. Pruning never changes what the chain produces: block
// production reads the latest state only.

import (
	"fmt"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// PrunedHeightError is CometBFT's error for a height below the node's base, the lowest
// height it still holds.
type PrunedHeightError struct{ Requested, Base int64 }

func (e *PrunedHeightError) Error() string {
	return fmt.Sprintf("height %d is not available, lowest height is %d", e.Requested, e.Base)
}

// Base is the lowest height whose block and state the chain still holds (1 until it prunes).
func (c *Chain) Base() int64 {
	if v := c.committed.Load(); v != nil {
		return v.base
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.base
}

// OnPrune registers fn, called with the new base before the chain drops the blocks below it.
// The chain's lock is not held, so fn may read those blocks (a view derived from them takes
// what it needs to go on without them).
func (c *Chain) OnPrune(fn func(newBase int64)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pruneHooks = append(c.pruneHooks, fn)
}

// maybePrune moves the base up once the retained window has grown by a tenth of itself, so
// the cost of a prune (a pass over every key) is paid every RetainBlocks/10 blocks.
func (c *Chain) maybePrune() {
	retain := int64(c.cfg.RetainBlocks)
	if retain <= 0 {
		return
	}
	c.mu.RLock()
	target := c.height - retain + 1
	due := target-c.base >= max(retain/10, 1)
	hooks := append([]func(newBase int64){}, c.pruneHooks...)
	c.mu.RUnlock()
	if !due {
		return
	}
	for _, fn := range hooks {
		fn(target)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pruneBelow(target)
}

// pruneBelow drops every block below base, their txs from the hash index, and every state
// version no query at base or above can read.
func (c *Chain) pruneBelow(base int64) {
	if base <= c.base {
		return
	}
	n := base - c.base
	for _, b := range c.blocks[:n] {
		for _, th := range b.TxHashes {
			delete(c.txIndex, th)
		}
	}
	forget := c.forgetAt(c.blockAt(base).Time)
	// A fresh slice, so the dropped blocks' backing array is freed.
	c.blocks = append(make([]*Block, 0, len(c.blocks)-int(n)+int(c.cfg.RetainBlocks)/10+1), c.blocks[n:]...)
	c.base = base
	c.publish()
	c.st.prune(base, forget)
}

// forgetAt asks the chain's Forgetter modules about a record whose newest value lies at or
// below base (nil when no module forgets anything). Keys are "<store>/<key>".
func (c *Chain) forgetAt(baseTime time.Time) func(key string, value []byte) bool {
	var fs []sim.Forgetter
	for _, m := range c.cfg.Modules {
		if f, ok := m.(sim.Forgetter); ok {
			fs = append(fs, f)
		}
	}
	if len(fs) == 0 {
		return nil
	}
	return func(key string, value []byte) bool {
		store, k, ok := strings.Cut(key, "/")
		if !ok {
			return false
		}
		for _, f := range fs {
			if f.Forgettable(baseTime, store, k, value) {
				return true
			}
		}
		return false
	}
}

// blockAt is the retained block at height h (base ≤ h ≤ height; caller holds the lock).
func (c *Chain) blockAt(h int64) *Block { return c.blocks[h-c.base] }

// prune keeps, per key, the versions written above base and the one visible at base. A key
// with nothing written since base goes entirely when its newest version deletes it, or when
// forget (if not nil) says so of its value. forget may read the store at base, so the keys
// that go are collected first and dropped after the pass.
func (s *store) prune(base int64, forget func(key string, value []byte) bool) {
	var drop []string
	for k, vs := range s.versions {
		i := len(vs) - 1
		for i > 0 && vs[i].height > base {
			i--
		}
		// vs[i] is the newest version at or below base (or the oldest there is).
		if i == len(vs)-1 && vs[i].height <= base && (vs[i].value == nil || forget != nil && forget(k, vs[i].value)) {
			drop = append(drop, k)
			continue
		}
		if i > 0 && vs[i].height <= base {
			s.versions[k] = append([]version(nil), vs[i:]...)
		}
	}
	if len(drop) == 0 {
		return
	}
	for _, k := range drop {
		delete(s.versions, k)
	}
	keys := s.keys[:0]
	for _, k := range s.keys {
		if _, ok := s.versions[k]; ok {
			keys = append(keys, k)
		}
	}
	s.keys = append([]string(nil), keys...)
}
