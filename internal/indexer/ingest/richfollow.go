package ingest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rollgate/rollgate/internal/store"
)

// The rich list is an extension: core ingestion (blocks, txs, account links, NFTs, EVM txs)
// never waits for it. While it keeps up, each block's balance changes go into the block's own
// transaction (store.RichListChanges.Ordered). When it cannot start (no genesis, no balances
// at a height), or a block's changes cannot be read, the store leaves it behind and the
// follower below brings it up on its own, from the chain, with backoff, reporting the lag in
// /readyz (RICH_LIST_BEHIND) and in one log line; once it reaches the indexed height the
// block writer carries it on again.

// NotReadyRichList: the rich list is behind the indexed blocks, or not started.
const NotReadyRichList = "RICH_LIST_BEHIND"

// RichListStore is the store as the rich list's follower sees it.
type RichListStore interface {
	RichListHeight(ctx context.Context) (int64, error)
	WriteRichList(ctx context.Context, blocks []store.RichListBlock) error
}

// richFollowHeights is how many heights the follower reads and writes at a time.
const richFollowHeights = 50

// richState is what readiness and the logs know of the rich list.
type richState struct {
	mu     sync.Mutex
	height int64 // last read rich_list_height
	err    error // why it is behind, while it is
	logged bool  // the one "behind" line is out
	at     int64 // the first height it misses: reaching it ends the stretch
}

// richBehind records why the rich list misses height at; only the first failure of a stretch
// is logged at warn, the rest at debug, so a chain without a genesis is one line, not one a
// retry.
func (r *richList) richBehind(err error, at int64) {
	r.st.mu.Lock()
	first := !r.st.logged
	r.st.err, r.st.logged = err, true
	r.st.at = max(r.st.at, at)
	h := r.st.height
	r.st.mu.Unlock()
	if first {
		r.p.log.Warn("rich list behind the blocks; it retries on its own and blocks, txs and NFTs go on",
			"rich_list_height", h, "indexed_height", r.p.indexed.Load(), "err", err)
	} else {
		r.p.log.Debug("rich list still behind", "rich_list_height", h, "err", err)
	}
}

// richAt records the rich list's height, and its catching up (only once it holds the heights
// the stretch of failures missed).
func (r *richList) richAt(h int64, caughtUp bool) {
	r.st.mu.Lock()
	r.st.height = h
	caughtUp = caughtUp && h >= r.st.at
	recovered := caughtUp && r.st.logged
	if caughtUp {
		r.st.err, r.st.logged = nil, false
	}
	r.st.mu.Unlock()
	if recovered {
		r.p.log.Info("rich list caught up", "rich_list_height", h)
	}
}

// richReady is the rich list's part of Ready.
func (r *richList) richReady(indexed int64) error {
	if indexed == 0 {
		return nil
	}
	r.st.mu.Lock()
	h, err := r.st.height, r.st.err
	r.st.mu.Unlock()
	if h > 0 && indexed-h <= r.p.cfg.ReadyMaxLag {
		return nil
	}
	msg := fmt.Sprintf("the rich list is %d blocks behind the indexed blocks (rich_list_height %d, indexed %d)", indexed-h, h, indexed)
	if h == 0 {
		msg = fmt.Sprintf("the rich list has not started (no starting balances yet; indexed %d)", indexed)
	}
	if err != nil {
		msg += fmt.Sprintf(" (last error: %v)", err)
	}
	return &NotReadyError{Reason: NotReadyRichList, Message: msg}
}

// followRichList brings the rich list up to the indexed height whenever it is behind, until
// ctx ends or, with Config.StopAtHeight, the list reaches that height.
func (r *richList) followRichList(ctx context.Context) {
	var written func() <-chan struct{}
	if w, ok := r.p.w.(interface{ Written() <-chan struct{} }); ok {
		written = w.Written
	}
	failures := 0
	for ctx.Err() == nil {
		var wake <-chan struct{}
		if written != nil {
			wake = written() // before the heights are read: a write in between still wakes us
		}
		indexed := r.p.indexed.Load() // before the rich list's height: both move in one transaction
		h, err := r.w.RichListHeight(ctx)
		if err == nil {
			if r.p.cfg.StopAtHeight > 0 && h >= r.p.cfg.StopAtHeight {
				r.richAt(h, true)
				return
			}
			switch {
			case h >= indexed:
				r.richAt(h, true)
				r.waitWritten(ctx, wake)
				continue
			case h == 0 && !closed(r.bootDone):
				r.waitWritten(ctx, wake) // the start-up read may still start it with its block
				continue
			case h == 0:
				r.richAt(h, false)
				err = r.startRichListLate(ctx, indexed)
			default:
				r.richAt(h, false)
				err = r.catchUpRichList(ctx, h, indexed)
			}
		}
		if err == nil {
			failures = 0
			continue
		}
		if ctx.Err() != nil {
			return
		}
		r.richBehind(err, h+1)
		sleep(ctx, r.p.backoff(failures))
		failures++
	}
}

func (r *richList) waitWritten(ctx context.Context, wake <-chan struct{}) {
	t := time.NewTimer(r.p.cfg.PollInterval)
	defer t.Stop()
	select {
	case <-wake:
	case <-t.C:
	case <-ctx.Done():
	}
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// startRichListLate starts a rich list the start-up could not: from genesis when the store
// starts at height 1 (then every indexed height is applied after it), else, or when genesis
// cannot be had, from the chain's balances at the indexed height. Each read is bounded by
// Config.ExtensionAttemptTimeout, so a source that keeps failing is tried again with backoff.
func (r *richList) startRichListLate(ctx context.Context, indexed int64) error {
	rs := r.src
	actx, cancel := context.WithTimeout(ctx, r.p.cfg.ExtensionAttemptTimeout)
	defer cancel()
	var errs []error
	if r.p.cfg.StartHeight <= 1 {
		boot, err := r.readStart(actx, rs, 1)
		if err == nil {
			var blocks []store.RichListBlock
			if blocks, err = r.richBlocks(actx, 1, 1); err == nil {
				withStart(&blocks[0].Changes, boot, 1)
				if err = r.writeRichList(actx, blocks); err == nil {
					r.p.log.Info("rich list started from genesis; catching up", "indexed_height", indexed)
					return nil
				}
			}
		}
		errs = append(errs, fmt.Errorf("from genesis: %w", err))
	}
	if _, ok := r.p.src.(StateSource); ok && indexed >= 2 {
		boot, err := r.readStart(actx, rs, indexed)
		if err == nil {
			boot.Start = true
			if err = r.writeRichList(actx, []store.RichListBlock{{Height: indexed, Changes: *boot}}); err == nil {
				r.p.log.Info("rich list started from the chain's balances", "height", indexed)
				return nil
			}
		}
		errs = append(errs, fmt.Errorf("from the balances at %d: %w", indexed, err))
	}
	if len(errs) == 0 {
		return errors.New("no genesis and no balances to start from")
	}
	return errors.Join(errs...)
}

// catchUpRichList applies the heights after from, up to richFollowHeights of them and never
// past the indexed height, reading their block results again from the chain.
func (r *richList) catchUpRichList(ctx context.Context, from, indexed int64) error {
	blocks, err := r.richBlocks(ctx, from+1, min(indexed, from+richFollowHeights))
	if err != nil {
		return err
	}
	return r.writeRichList(ctx, blocks)
}

// richBlocks reads the rich-list changes of heights [from, to] from the chain.
func (r *richList) richBlocks(ctx context.Context, from, to int64) ([]store.RichListBlock, error) {
	blocks := make([]store.RichListBlock, to-from+1)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for i := range blocks {
		h := from + int64(i)
		g.Go(func() error {
			results, err := r.p.src.BlockResults(gctx, h)
			if err != nil {
				return fmt.Errorf("block results %d: %w", h, err)
			}
			rl, err := r.richListChanges(gctx, h, results)
			if err != nil {
				return err
			}
			blocks[i] = store.RichListBlock{Height: h, Changes: *rl}
			return nil
		})
	}
	return blocks, g.Wait()
}

// writeRichList writes the follower's blocks, correcting from the chain a balance a change
// would take below zero, as the block writer does. Under repeated transient faults it writes
// smaller runs of heights (writeSize), so that some commit between two faults; a run that
// still fails returns its error, and the follower's next round goes on from what committed.
func (r *richList) writeRichList(ctx context.Context, blocks []store.RichListBlock) error {
	for len(blocks) > 0 {
		n := r.size.Take(len(blocks))
		err := r.writeRichRun(ctx, blocks[:n])
		if r.size.Done(n, richFollowHeights, err) {
			continue
		}
		if err != nil {
			return err
		}
		blocks = blocks[n:]
	}
	return nil
}

func (r *richList) writeRichRun(ctx context.Context, blocks []store.RichListBlock) error {
	for fixes := 0; ; fixes++ {
		err := r.w.WriteRichList(ctx, blocks)
		var neg *store.NegativeBalanceError
		if err == nil || !errors.As(err, &neg) || fixes > 1000 {
			return err
		}
		i := int(neg.Height - blocks[0].Height)
		if i < 0 || i >= len(blocks) || blocks[i].Height != neg.Height {
			return err
		}
		set, cerr := r.correctBalance(ctx, neg)
		if cerr != nil {
			return fmt.Errorf("rich list correction: %w", cerr)
		}
		blocks[i].Changes.Sets = append(blocks[i].Changes.Sets, set)
	}
}
