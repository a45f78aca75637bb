package store

// Retention: a store that keeps only the newest heights, as a pruned node does. `rollgate up`
// runs it so a devnet left running for days (which itself keeps 600 blocks) does not grow its
// indexers' stores without bound.
//
// What goes: everything keyed by a height or a tx sequence below the lowest retained height
// (blocks, txs and their account and message-type edges, EVM txs and their account edges,
// internal txs and theirs, NFT tx history, the rows of the tables an extension owns, by their
// height column). What stays: the current state, which no height rebuilds (NFT collections,
// live tokens and their rank buckets, the rich list), and the dictionaries with their
// counters: a counter is the last ord handed out, and the ords of the kept rows and of the rows
// still to come continue from it, so a retained row reads exactly as it did before the prune
// (same ord, same offset arithmetic from the head).
//
// Pruning moves indexed_height.first_height up, so the block list's offsets and total follow
// the retained range, as on a pruned node. Once a DB prunes, no answer is final (pinned): the
// oldest page of every list changes as the floor moves.

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// PrunedError is the answer for a height below the lowest one a pruning store keeps.
type PrunedError struct {
	Height, Lowest int64
}

func (e *PrunedError) Error() string {
	return fmt.Sprintf("height %d is pruned: lowest retained height is %d", e.Height, e.Lowest)
}

// retention is the DB's retention setting: 0 keeps every height.
type retention struct {
	keep atomic.Int64
}

// SetRetention makes the DB answer as a store keeping the newest keep heights (0: all): a read
// of a height below the lowest kept is a PrunedError, and no page is final. The writer prunes
// with Prune; an API replica sharing the writer's PostgreSQL sets the same value to answer
// the same way.
func (d *DB) SetRetention(keep int64) { d.retain.keep.Store(max(keep, 0)) }

// Retention returns the number of heights kept (0: all).
func (d *DB) Retention() int64 { return d.retain.keep.Load() }

// LowestHeight returns the lowest height the store holds (0 when empty).
func (d *DB) LowestHeight(ctx context.Context) (int64, error) {
	return readRetrying(ctx, d, func() (int64, error) {
		st, err := d.readerState(ctx, d.be.Reader())
		return st.firstHeight, err
	})
}

// prunedBelow returns a PrunedError when the DB prunes and height is below its floor.
func (d *DB) prunedBelow(ctx context.Context, c sqldb.Conn, height int64) error {
	if d.Retention() == 0 || height <= 0 {
		return nil
	}
	st, err := d.readerState(ctx, c)
	if err != nil {
		return err
	}
	if st.height > 0 && height < st.firstHeight {
		return &PrunedError{Height: height, Lowest: st.firstHeight}
	}
	return nil
}

// CheckHeight returns a PrunedError when the DB prunes and height is below the lowest height
// it keeps; the API calls it before a height's cached or stored answer.
func (d *DB) CheckHeight(ctx context.Context, height int64) error {
	_, err := readRetrying(ctx, d, func() (struct{}, error) {
		return struct{}{}, d.prunedBelow(ctx, d.be.Reader(), height)
	})
	return err
}

// PruneResult says what one Prune call removed.
type PruneResult struct {
	From, To int64 // the heights removed: From..To-1; From == To when nothing was
	Batches  int
}

// Prune removes the heights below height-keep+1 in batches of at most batch heights, each its
// own short transaction, so ingestion (which waits for the write lock) is held up for one
// batch at a time, never for the whole backlog. keep <= 0 removes nothing.
func (d *DB) Prune(ctx context.Context, keep, batch int64) (PruneResult, error) {
	if keep <= 0 {
		return PruneResult{}, nil
	}
	if batch <= 0 {
		batch = 100
	}
	var res PruneResult
	for {
		lo, hi, err := d.pruneBatch(ctx, keep, batch)
		if err != nil {
			return res, err
		}
		if lo == hi {
			return res, nil
		}
		if res.Batches == 0 {
			res.From = lo
		}
		res.To = hi
		res.Batches++
	}
}

// pruneBatch removes heights lo..hi-1, the oldest batch above the store's floor, and returns
// lo == hi when nothing is left to remove.
func (d *DB) pruneBatch(ctx context.Context, keep, batch int64) (lo, hi int64, err error) {
	// Nothing to do is the common case (a tick with fewer new heights than a batch is still
	// one batch): decided from the readers' cached state, without the write lock.
	if st, err := d.readerState(ctx, d.be.Reader()); err == nil && (st.height == 0 || st.height-keep+1 <= st.firstHeight) {
		return st.firstHeight, st.firstHeight, nil
	}
	d.writeMu.Lock()
	defer d.writeMu.Unlock()
	defer func() {
		// A lost connection leaves the pool reset, so the next tick starts on a fresh one.
		if err != nil && IsTransient(err) {
			d.be.Reset()
		}
	}()
	tx, err := d.be.Begin(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("prune: begin: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			if rerr := tx.Rollback(context.WithoutCancel(ctx)); rerr != nil && err == nil {
				err = fmt.Errorf("prune: rollback: %w", rerr)
			}
		}
	}()
	st, err := readState(ctx, tx, d.be.ForUpdate())
	if err != nil {
		return 0, 0, err
	}
	lo = st.firstHeight
	hi = min(st.height-keep+1, lo+batch)
	if st.height == 0 || hi <= lo {
		return lo, lo, nil
	}
	// The txs of heights lo..hi-1 are the sequences up to the last one of block hi-1 (blocks
	// are dense, and a block without txs carries first_sequence-1 as its last).
	var lastSeq int64
	if err := queryRow(ctx, tx, "SELECT last_sequence FROM block WHERE height = ?", []any{hi - 1}, &lastSeq); err != nil {
		return 0, 0, fmt.Errorf("prune: block %d: %w", hi-1, err)
	}
	stmts := []struct {
		what string
		q    string
		arg  int64
	}{
		{"tx_accounts", "DELETE FROM tx_accounts WHERE sequence <= ?", lastSeq},
		{"tx_msg_types", "DELETE FROM tx_msg_types WHERE sequence <= ?", lastSeq},
		{"nft_txs", "DELETE FROM nft_txs WHERE sequence <= ?", lastSeq},
		{"tx", "DELETE FROM tx WHERE sequence <= ?", lastSeq},
		{"block", "DELETE FROM block WHERE height < ?", hi},
		// EVM receipts are written with their block, so their sequences below the floor are
		// exactly those of the heights removed.
		{"evm_tx_accounts", "DELETE FROM evm_tx_accounts WHERE sequence <= (SELECT COALESCE(MAX(sequence), 0) FROM evm_tx WHERE height < ?)", hi},
		{"evm_tx", "DELETE FROM evm_tx WHERE height < ?", hi},
	}
	for _, s := range stmts {
		if err := tx.Exec(ctx, s.q, s.arg); err != nil {
			return 0, 0, fmt.Errorf("prune %s: %w", s.what, err)
		}
	}
	if err := pruneTransfers(ctx, tx, hi); err != nil {
		return 0, 0, err
	}
	if err := clearExtensionTables(ctx, tx, hi); err != nil {
		return 0, 0, fmt.Errorf("prune: %w", err)
	}
	if err := tx.Exec(ctx, "UPDATE indexed_height SET first_height = ? WHERE id = 1", hi); err != nil {
		return 0, 0, fmt.Errorf("prune: update indexed_height: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, 0, fmt.Errorf("prune: commit: %w", err)
	}
	committed = true
	st.firstHeight = hi
	d.state.put(st, time.Now())
	// Internal txs have their own follower and lock; a trace written later for a height
	// already below the floor goes with the next batch, since the condition is the floor.
	if err := d.pruneInternal(ctx, hi); err != nil {
		return 0, 0, err
	}
	return lo, hi, nil
}

func (d *DB) pruneInternal(ctx context.Context, below int64) (err error) {
	d.internalMu.Lock()
	defer d.internalMu.Unlock()
	tx, err := d.be.Begin(ctx)
	if err != nil {
		return fmt.Errorf("prune internal txs: begin: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if err := tx.Exec(ctx, "DELETE FROM evm_internal_tx_accounts WHERE sequence <= (SELECT COALESCE(MAX(sequence), 0) FROM evm_internal_tx WHERE height < ?)", below); err != nil {
		return fmt.Errorf("prune evm_internal_tx_accounts: %w", err)
	}
	if err := tx.Exec(ctx, "DELETE FROM evm_internal_tx WHERE height < ?", below); err != nil {
		return fmt.Errorf("prune evm_internal_tx: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("prune internal txs: commit: %w", err)
	}
	return nil
}

// IsPruned reports whether err is a PrunedError.
func IsPruned(err error) bool {
	var p *PrunedError
	return errors.As(err, &p)
}

// unpinned clears Final on a pruning DB: the oldest page of a list changes as the floor moves.
func (d *DB) unpinned(page TxPage, err error) (TxPage, error) {
	if d.Retention() > 0 {
		page.Final = false
	}
	return page, err
}
