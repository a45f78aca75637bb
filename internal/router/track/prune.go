package track

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"

	"github.com/rollgate/rollgate/internal/tick"
)

// PruneEvents deletes the stored bridge events whose block time is more than keep before now,
// and returns how many went. An event a transfer still in flight may need is kept: the cut
// never passes keep before the registration of the oldest non-terminal transfer (a tracked tx
// may have been sent a while before it was registered). A terminal transfer keeps its status
// document, which is all /v2/tx/status reads for it, so its events may go.
//
// Without it the table grows with every bridge event of every watched chain (`rollgate up`'s
// devnet: ~0.4 MiB a minute), while the chains themselves keep a window of blocks.
func (s *Store) PruneEvents(ctx context.Context, now time.Time, keep time.Duration) (int64, error) {
	if keep <= 0 {
		return 0, nil
	}
	cut := now.Add(-keep).UnixNano()
	var oldest sql.NullInt64
	if err := s.db.QueryRowContext(ctx, "SELECT MIN(created_ns) FROM track_transfer WHERE terminal = 0").Scan(&oldest); err != nil {
		return 0, fmt.Errorf("track prune: oldest active transfer: %w", err)
	}
	if oldest.Valid {
		cut = min(cut, oldest.Int64-int64(keep))
	}
	res, err := s.db.ExecContext(ctx, s.q("DELETE FROM track_event WHERE time_ns < ?"), cut)
	if err != nil {
		return 0, fmt.Errorf("track prune: %w", err)
	}
	return res.RowsAffected()
}

// RunPruner calls PruneEvents every interval until ctx ends. A failure (a database away) is
// logged and tried again at the next tick: pruning is housekeeping and never stops tracking.
func (s *Store) RunPruner(ctx context.Context, keep, interval time.Duration, log *slog.Logger) {
	if keep <= 0 {
		return
	}
	tick.Every(ctx, interval, func(now time.Time) {
		if _, err := s.PruneEvents(ctx, now, keep); err != nil && ctx.Err() == nil {
			log.Warn("track: prune events failed; retrying at the next tick", "err", err)
		}
	})
}
