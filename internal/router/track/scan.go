package track

import (
	"context"
	"fmt"
	"time"

	"github.com/rollgate/rollgate/internal/chain/comet"
)

// scanPass scans the next blocks of one chain: one /status for the tip and one JSON-RPC batch
// of /block + /block_results for up to Batch heights, whatever the number of transfers in
// flight. Every bridge event is stored (not only those of tracked transfers), so a transfer
// registered or resumed later finds what already happened by a local lookup. It returns the
// number of blocks scanned.
func (t *Tracker) scanPass(ctx context.Context, chainID string, rpc *comet.Client) (int, error) {
	// Lease first: a replica that does not scan this chain makes no upstream call for it.
	cur, ok, err := t.st.LeaseCursor(ctx, chainID, t.cfg.Owner, t.cfg.Now(), t.cfg.Lease, -1)
	if err != nil || !ok {
		return 0, err // another replica scans this chain
	}
	tip, err := rpc.LatestHeight(ctx)
	t.calls.Add(1)
	if err != nil {
		return 0, fmt.Errorf("%s tip: %w", chainID, err)
	}
	if cur.Height < 0 {
		// First scan of this chain: start Backfill blocks below the tip.
		cur.Height = max(tip-t.cfg.Backfill, 0)
		if err := t.st.SaveBlocks(ctx, chainID, t.cfg.Owner, nil, cur); err != nil {
			return 0, err
		}
	}
	if cur.Height >= tip {
		return 0, nil
	}
	heights := make([]int64, 0, t.cfg.Batch)
	for h := cur.Height + 1; h <= tip && len(heights) < t.cfg.Batch; h++ {
		heights = append(heights, h)
	}
	fetchStart := time.Now()
	bundles, berr := rpc.BlockAndResults(ctx, heights)
	fetched := time.Since(fetchStart)
	t.calls.Add(1)
	// Keep the contiguous prefix that arrived; the rest is fetched next pass.
	n := 0
	for n < len(bundles) && bundles[n] != nil && bundles[n].Block.Block != nil {
		n++
	}
	if n == 0 {
		if berr == nil {
			berr = fmt.Errorf("empty batch")
		}
		return 0, fmt.Errorf("%s blocks %d…: %w", chainID, heights[0], berr)
	}
	// Read the not-yet-seen tracked hashes after fetching: a hash registered after this read
	// is looked up by /tx at registration, which then already sees these blocks.
	pend, err := t.st.Pending(ctx, chainID)
	if err != nil {
		return 0, err
	}
	var evs []Event
	var last Cursor
	for _, b := range bundles[:n] {
		blk := b.Block.Block
		at := blk.Header.Time.UTC()
		for i, raw := range blk.Data.Txs {
			if i >= len(b.Results.TxsResults) || b.Results.TxsResults[i] == nil {
				continue
			}
			hash := TxHash(raw)
			evs = append(evs, extract(chainID, b.Height, i, hash, at, b.Results.TxsResults[i], pend[hash])...)
		}
		last = Cursor{Height: b.Height, Time: at}
	}
	saveStart := time.Now()
	if err := t.st.SaveBlocks(ctx, chainID, t.cfg.Owner, evs, last); err != nil {
		return 0, err
	}
	t.blocks.Add(int64(n))
	t.log.Debug("track scan", "chain", chainID, "blocks", n, "to", last.Height, "events", len(evs), "fetch", fetched, "save", time.Since(saveStart))
	return n, nil
}

// scanLoop scans one chain until ctx ends; it polls the tip every Poll while caught up.
func (t *Tracker) scanLoop(ctx context.Context, chainID string, rpc *comet.Client, f *failures) {
	for {
		n, err := t.scanPass(ctx, chainID, rpc)
		if ctx.Err() != nil {
			return
		}
		wait, stop := f.next(err, "chain", chainID)
		if stop {
			return
		}
		if wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			continue
		}
		if n > 0 {
			t.poke()
			if n == t.cfg.Batch {
				continue // behind: fetch the next batch at once
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(t.cfg.Poll):
		}
	}
}
