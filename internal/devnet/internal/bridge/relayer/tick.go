package relayer

import (
	"context"
	"log/slog"
	"time"

	"github.com/rollgate/rollgate/internal/tick"
)

// Tick is the loop the devnet's bots wait for delivery in: step every interval until ctx ends,
// logging a failed step as failed (with its error) and trying again on the next tick. It
// blocks.
func Tick(ctx context.Context, every time.Duration, step func(context.Context) error, log *slog.Logger, failed string) {
	tick.Every(ctx, every, func(time.Time) {
		if err := step(ctx); err != nil {
			log.Warn(failed, "err", err)
		}
	})
}
