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
	cs := t.chainScan(chainID)
	cur, ok, err := t.st.LeaseCursor(ctx, chainID, t.cfg.Owner, t.cfg.Now(), t.cfg.Lease, -1)
	if err != nil || !ok {
		cs.verified = false // checked again when this replica takes the chain up
		return 0, err       // another replica scans this chain
	}
	if cur.Halted != nil {
		t.halted(chainID, cs, cur.Halted) // nothing more is read from its node (chaincheck.go)
		return 0, nil
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
	if tip < cur.Height {
		t.behind(chainID, cs, tip, cur.Height)
		return 0, nil
	}
	if !cs.verified && cur.Hash != "" {
		// Taking the chain up: the node's block at the cursor must be the one scanned.
		blk, err := rpc.Block(ctx, cur.Height)
		t.calls.Add(1)
		if err != nil {
			return 0, fmt.Errorf("%s block %d: %w", chainID, cur.Height, err)
		}
		if m := checkAt(chainID, cur, blk, t.cfg.Now()); m != nil {
			return 0, t.halt(ctx, chainID, cs, m)
		}
	}
	cs.verified = true
	t.scanning(chainID, cs)
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
	// Only blocks that continue the stored chain are stored; the first that does not halts it.
	n, mismatch := continues(chainID, cur, bundles[:n], t.cfg.Now())
	// Read the not-yet-seen tracked hashes after fetching: a hash registered after this read
	// is looked up by /tx at registration, which then already sees these blocks.
	pend, err := t.st.Pending(ctx, chainID)
	if err != nil {
		return 0, err
	}
	blocks := make([]scannedBlock, n)
	nev := 0
	for j, b := range bundles[:n] {
		blk := b.Block.Block
		at := blk.Header.Time.UTC()
		var evs []Event
		for i, raw := range blk.Data.Txs {
			if i >= len(b.Results.TxsResults) || b.Results.TxsResults[i] == nil {
				continue
			}
			hash := TxHash(raw)
			evs = append(evs, extract(chainID, b.Height, i, hash, at, b.Results.TxsResults[i], pend[hash])...)
		}
		blocks[j] = scannedBlock{evs: evs, to: Cursor{Height: b.Height, Time: at, Hash: hashHex(b.Block.BlockID.Hash)}}
		nev += len(evs)
	}
	saveStart := time.Now()
	saved, err := t.saveBlocks(ctx, chainID, cs, blocks)
	t.blocks.Add(int64(saved))
	if err != nil {
		return saved, err
	}
	if mismatch != nil {
		return saved, t.halt(ctx, chainID, cs, mismatch)
	}
	if n > 0 {
		t.log.Debug("track scan", "chain", chainID, "blocks", n, "to", blocks[n-1].to.Height, "events", nev, "fetch", fetched, "save", time.Since(saveStart))
	}
	return n, nil
}

// scannedBlock is one fetched block's events and the cursor after it.
type scannedBlock struct {
	evs []Event
	to  Cursor
}

// saveBlocks stores the blocks in one transaction while nothing fails; under repeated
// transient faults in smaller runs of heights (sqldb.WriteSize), so that some commit between
// two faults. Each run advances the cursor with its events, so runs commit exactly what the
// whole would have. It returns how many blocks were stored; a failure the size does not
// absorb is returned for the scan loop to handle.
func (t *Tracker) saveBlocks(ctx context.Context, chainID string, cs *chainScan, blocks []scannedBlock) (int, error) {
	saved := 0
	for len(blocks) > 0 {
		k := cs.size.Take(len(blocks))
		var evs []Event
		for _, b := range blocks[:k] {
			evs = append(evs, b.evs...)
		}
		err := t.st.SaveBlocks(ctx, chainID, t.cfg.Owner, evs, blocks[k-1].to)
		if cs.size.Done(k, t.cfg.Batch, err) {
			t.log.Debug("track scan: saving blocks failed; retrying in smaller runs", "chain_id", chainID, "blocks", k, "err", err)
			continue
		}
		if err != nil {
			return saved, err
		}
		saved += k
		blocks = blocks[k:]
	}
	return saved, nil
}

// scanLoop scans one chain until ctx ends; it polls the tip every Poll while caught up.
func (t *Tracker) scanLoop(ctx context.Context, chainID string, rpc *comet.Client, f *failures) {
	t.passLoop(ctx, chainID, func(ctx context.Context) (int, error) { return t.scanPass(ctx, chainID, rpc) }, t.cfg.Batch, f)
}

// passLoop runs one chain's scan passes until ctx ends: a failed pass waits as f says, a pass
// that read full (the chain is behind) is followed at once, otherwise the tip is polled every
// Poll. CometBFT and EVM chains share it; only their pass differs.
func (t *Tracker) passLoop(ctx context.Context, chainID string, pass func(context.Context) (int, error), full int, f *failures) {
	for {
		n, err := pass(ctx)
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
			if n == full {
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
