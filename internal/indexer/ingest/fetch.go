package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/rollgate/rollgate/internal/chain/txcodec"
)

// rawHeight is what has been fetched of one height so far. A failed attempt keeps what it got,
// so a retry asks only for the missing part: under upstream faults, one failed call no longer
// costs the height's other (often large) answers again.
type rawHeight struct {
	blk         *RawBlock
	results     []TxResult
	haveResults bool
	rest        []json.RawMessage
	haveRest    bool
}

// kept reports whether any part of the height is held for the next attempt.
func (g *rawHeight) kept() bool { return g.blk != nil || g.haveResults || g.haveRest }

// fetchRaw completes got: /block and /block_results at once (they are independent), then the
// REST tx JSON when the block has txs.
func (p *Pipeline) fetchRaw(ctx context.Context, h int64, got *rawHeight) error {
	var wg sync.WaitGroup
	var errBlock, errResults error
	if got.blk == nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got.blk, errBlock = p.src.Block(ctx, h)
		}()
	}
	if !got.haveResults {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r []TxResult
			if r, errResults = p.src.BlockResults(ctx, h); errResults == nil {
				got.results, got.haveResults = r, true
			}
		}()
	}
	wg.Wait()
	if errBlock != nil {
		got.blk = nil
		return errBlock
	}
	if errResults != nil {
		return errResults
	}
	if len(got.blk.Txs) == 0 || got.haveRest {
		return nil
	}
	var rest []json.RawMessage
	if p.cfg.LocalTxJSON {
		rest = txcodec.BlockTxsJSON(got.blk.Txs)
	}
	if rest == nil {
		var err error
		if rest, err = p.src.BlockTxs(ctx, h); err != nil {
			return err
		}
		if len(rest) != len(got.blk.Txs) {
			return fmt.Errorf("height %d: %w: %d txs in the block, %d from REST", h, ErrInvalidData, len(got.blk.Txs), len(rest))
		}
	}
	got.rest, got.haveRest = rest, true
	return nil
}
