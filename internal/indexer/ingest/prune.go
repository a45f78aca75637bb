package ingest

import (
	"context"
	"log/slog"
	"time"

	"github.com/rollgate/rollgate/internal/store"
)

// Pruner is the store side of retention (store.DB implements it).
type Pruner interface {
	Prune(ctx context.Context, keep, batch int64) (store.PruneResult, error)
}

// pruneBatch is how many heights one prune transaction removes: at a devnet's few txs per
// block, a batch is a few milliseconds of the write lock, so ingestion never waits long.
const pruneBatch = 50

// RunPruner keeps the store at its newest keep heights, off the ingest path: every interval it
// removes what ingestion added beyond that, in short batches. A failed prune (a database drop,
// a busy SQLite) is logged and tried again at the next tick: retention is housekeeping, and
// never stops the indexer. It returns when ctx ends.
func RunPruner(ctx context.Context, p Pruner, keep int64, interval time.Duration, log *slog.Logger) error {
	if keep <= 0 {
		<-ctx.Done()
		return nil
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		res, err := p.Prune(ctx, keep, pruneBatch)
		if err != nil && ctx.Err() == nil {
			log.Warn("prune failed; retrying at the next tick", "err", err, "keep", keep)
			continue
		}
		if res.Batches > 0 {
			log.Debug("pruned", "from", res.From, "to", res.To, "batches", res.Batches)
		}
	}
}
