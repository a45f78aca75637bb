package api

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/store"
)

// ChainWatcher is the ingestion's view of the chain it follows (ingest.Pipeline has it).
type ChainWatcher interface {
	// ChainFault is nil while the node serves the stored chain, else an error whose
	// ReadyReason() is CHAIN_MISMATCH, CHAIN_RESET or UPSTREAM_BEHIND.
	ChainFault() error
	// ChainFaultChanged is closed at the next change of ChainFault.
	ChainFaultChanged() <-chan struct{}
	// ChainResets counts the times the store was dropped to index another chain.
	ChainResets() int64
}

// The stream errors of a chain that changed under the indexer.
const (
	chainMismatch = "CHAIN_MISMATCH"
	chainReset    = "CHAIN_RESET"
)

// chainInterrupt ends the open streams when the node turns out to serve another chain: an
// item after the last one sent would not continue what the client holds. A node behind the
// store is waited for, so it ends nothing.
func chainInterrupt(c ChainWatcher) func() (<-chan struct{}, func() error) {
	return func() (<-chan struct{}, func() error) {
		resets, changed := c.ChainResets(), c.ChainFaultChanged()
		return changed, func() error {
			fault := c.ChainFault()
			var rr interface{ ReadyReason() string }
			reason := ""
			if errors.As(fault, &rr) {
				reason = rr.ReadyReason()
			}
			switch {
			case reason == chainReset || c.ChainResets() != resets:
				return errChainReset()
			case reason == chainMismatch:
				return (&apierr.Error{Code: apierr.Unavailable, Message: fault.Error(), Expected: true}).WithDetails(chainMismatch)
			}
			return nil
		}
	}
}

// errChainReset ends a stream whose chain the store dropped to index another.
func errChainReset() error {
	msg := "the node serves another chain; the store was dropped to index it from its first height: reconnect without Last-Event-ID"
	return (&apierr.Error{Code: apierr.Unavailable, Message: msg, Expected: true}).WithDetails(chainReset)
}

// epochMoved reads the store's epoch and reports whether it is no longer epoch (dropping
// what the server holds of the old chain when so). The streams ask it after reading items
// and before sending them: an item read after a re-index is of the new chain, and must not
// go out under an id of the old one. A failed read says yes (the stream ends with the
// read's error, and the client resumes with the last id it has), never sends what it read.
// A re-index found here is what the server's chain watch finds too (storeChain.observe):
// every stream of the server then ends at once with CHAIN_RESET, those attached to the
// shared block feed as well, without waiting for the watch's next poll.
func (s *server) epochMoved(ctx context.Context, epoch int64) (bool, error) {
	if s.cs == nil {
		return false, nil
	}
	st, err := s.cs.ChainState(ctx)
	if err != nil {
		return true, err
	}
	if st.Epoch == epoch {
		return false, nil
	}
	// Dropped before any stream is told: a client whose stream ends with CHAIN_RESET must
	// not then be answered from the old chain's cache.
	s.chainDropped(st.Epoch)
	if sc, ok := s.cfg.Chain.(*storeChain); ok {
		sc.observe(st)
	}
	return true, nil
}

// checkEpoch is epochMoved as a stream's error: nil while the store is at epoch, else
// CHAIN_RESET (or the failed read's error).
func (s *server) checkEpoch(ctx context.Context, epoch int64) error {
	moved, err := s.epochMoved(ctx, epoch)
	switch {
	case err != nil:
		return err
	case moved:
		return errChainReset()
	}
	return nil
}

// epochInterrupt is the streams' interrupt of a server without a ChainWatcher (New, with no
// background watch): the server's own finding of a re-index (chainDropped, which the streams
// reach through epochMoved) ends every open stream with CHAIN_RESET, the attached ones too.
func (s *server) epochInterrupt() (<-chan struct{}, func() error) {
	s.epochMu.Lock()
	defer s.epochMu.Unlock()
	if s.dropped == nil {
		s.dropped = make(chan struct{})
	}
	return s.dropped, errChainReset
}

// chainStater is the store's record of the chain beyond its data (store.DB.ChainState): the
// writer's verdict on its node's chain and the store's re-index count.
type chainStater interface {
	ChainState(ctx context.Context) (store.ChainState, error)
}

// chainPoll is how often an API without its own pipeline (an API replica, `--mode api`)
// reads the store's chain state: one small read per period, whatever the number of requests
// and streams.
const chainPoll = time.Second

// storeChain is ChainWatcher over the store's chain state, for an API that does not ingest:
// the writer records a mismatch or a re-index in the store (ingest's SetChainFault, Reset),
// and this reads it back every period, so the replica's /readyz and streams say what the
// writer's own API says. ChainResets is the store's epoch.
type storeChain struct {
	r     chainStater
	every time.Duration
	// onEpoch is called (on the polling goroutine) when the epoch moves: the server drops what
	// it holds of the dropped chain.
	onEpoch func(epoch int64)
	log     *slog.Logger

	mu      sync.Mutex
	cur     store.ChainState
	read    bool          // cur was read at least once
	changed chan struct{} // closed, and replaced, at every change of cur's fault or epoch
	failing bool          // the last read failed (logged once until one succeeds)
}

func newStoreChain(r chainStater, every time.Duration, log *slog.Logger, onEpoch func(int64)) *storeChain {
	if every <= 0 {
		every = chainPoll
	}
	return &storeChain{r: r, every: every, log: log, onEpoch: onEpoch, changed: make(chan struct{})}
}

// run polls until ctx ends. The first read comes at once, so /readyz is right from the start.
func (c *storeChain) run(ctx context.Context) {
	t := time.NewTicker(c.every)
	defer t.Stop()
	for {
		c.poll(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (c *storeChain) poll(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, max(c.every, 2*time.Second))
	st, err := c.r.ChainState(rctx)
	cancel()
	if err != nil {
		if ctx.Err() == nil && !c.failing {
			c.failing = true
			c.log.Warn("reading the store's chain state failed; keeping the last one read", "err", err)
		}
		return
	}
	c.failing = false
	c.set(st)
}

// observe is a chain state a stream read (epochMoved) that shows a re-index: taken as a poll
// would take it, so every stream's interrupt fires now. Only a new epoch is taken, the fault
// is left to the poll (a state read before the poll's last one must not undo it).
func (c *storeChain) observe(st store.ChainState) {
	c.mu.Lock()
	if !c.read || st.Epoch == c.cur.Epoch {
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	c.set(st)
}

// set makes st the current chain state, signalling a change of its fault or epoch.
// On a new epoch the server drops what it holds of the old chain (onEpoch) before the change
// is signalled: a client whose stream ends with CHAIN_RESET must not then be answered from the
// old chain's cache.
func (c *storeChain) set(st store.ChainState) {
	c.mu.Lock()
	moved := c.read && st.Epoch != c.cur.Epoch
	c.mu.Unlock()
	if moved && c.onEpoch != nil {
		c.onEpoch(st.Epoch) // idempotent: a poll and a stream's observe may both get here
	}
	c.mu.Lock()
	moved = c.read && st.Epoch != c.cur.Epoch
	same := c.read && !moved && st.Fault == c.cur.Fault && st.Message == c.cur.Message
	c.cur, c.read = st, true
	if !same {
		close(c.changed)
		c.changed = make(chan struct{})
	}
	c.mu.Unlock()
}

// storeFault is a fault the writer recorded, as its readiness reported it.
type storeFault struct{ reason, message string }

func (f *storeFault) Error() string       { return f.message }
func (f *storeFault) ReadyReason() string { return f.reason }

func (c *storeChain) ChainFault() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur.Fault == "" {
		return nil
	}
	return &storeFault{reason: c.cur.Fault, message: c.cur.Message}
}

func (c *storeChain) ChainFaultChanged() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}

func (c *storeChain) ChainResets() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur.Epoch
}

// watchChain starts, for the server's lifetime ctx, what keeps the server true to the store's chain:
// without an in-process Chain, the store's chain state polled (storeChain), which becomes
// Chain and, when Ready is nil, readiness; with one, a watch of its re-indexes. Either way a
// re-index drops the server's cache and stream window (chainDropped).
func (s *server) watchChain(ctx context.Context, log *slog.Logger) {
	if ctx.Done() == nil || s.cs == nil {
		return // a lifetime that never ends (New): nothing runs in the background
	}
	if s.cfg.Chain == nil {
		sc := newStoreChain(s.cs, s.cfg.ChainPoll, log, s.chainDropped)
		s.cfg.Chain = sc
		if s.cfg.Ready == nil {
			s.cfg.Ready = sc.ChainFault
		}
		go sc.run(ctx)
		return
	}
	c := s.cfg.Chain
	if r, ok := c.(interface{ OnReindex(func()) }); ok {
		// The pipeline (ingest.Pipeline) calls it when the store was dropped, before it tells
		// anyone: no cached answer of the old chain outlives the drop.
		// The drop moved the store's epoch in its own transaction, so reading it clears the
		// cache (chainDropped), unless a stream or the watch below saw it first and cleared it
		// then; a failed read clears it here.
		r.OnReindex(func() {
			if _, err := s.streamEpoch(ctx); err != nil {
				s.cache.Clear()
				if ctx.Err() == nil {
					log.Warn("reading the store's epoch after a re-index failed; the next stream reads it again", "err", err)
				}
			}
		})
	}
	go func() {
		resets := c.ChainResets()
		for {
			changed := c.ChainFaultChanged()
			if r := c.ChainResets(); r != resets {
				resets = r
				if _, err := s.streamEpoch(ctx); err != nil && ctx.Err() == nil {
					log.Warn("reading the store's epoch after a re-index failed; the next stream reads it again", "err", err)
				}
			}
			if changed == nil {
				return // a watcher that never changes
			}
			select {
			case <-ctx.Done():
				return
			case <-changed:
			}
		}
	}()
}

// streamEpoch is the store's epoch for a stream that starts: read from the store (one small
// read per stream, so no id carries an epoch older than the data it names), dropping what the
// server holds of a dropped chain when it moved.
func (s *server) streamEpoch(ctx context.Context) (int64, error) {
	if s.cs == nil {
		return 0, nil
	}
	st, err := s.cs.ChainState(ctx)
	if err != nil {
		return 0, err
	}
	s.chainDropped(st.Epoch)
	return st.Epoch, nil
}

// chainDropped makes epoch the server's: answers rendered from an older epoch's chain
// (pinned ones too) and the block window, framed with its ids, are dropped.
func (s *server) chainDropped(epoch int64) {
	s.epochMu.Lock()
	defer s.epochMu.Unlock()
	if epoch == s.epoch {
		return
	}
	s.epoch = epoch
	s.cache.Clear()
	s.feed.reset(epoch)
	if s.dropped != nil {
		close(s.dropped)
		s.dropped = nil
	}
}
