package relayer

import (
	"context"
	"log/slog"
	"time"
)

// Tick is the loop the devnet's bots wait for delivery in: step every interval until ctx ends,
// logging a failed step as failed (with its error) and trying again on the next tick. It
// blocks.
func Tick(ctx context.Context, every time.Duration, step func(context.Context) error, log *slog.Logger, failed string) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := step(ctx); err != nil {
				log.Warn(failed, "err", err)
			}
		}
	}
}
