// Package tick is the loop the long-running housekeepers (block producers, relayer bots, the
// tracker's pruner, the fleet's lease renewal and chain-set reload) share: one function each
// interval until the context ends. It imports nothing of the project, so any package may stand
// on it.
package tick

import (
	"context"
	"time"
)

// Every calls fn with each tick's time, every d, until ctx ends; a tick fn overruns is
// dropped, as a time.Ticker drops it. It blocks.
func Every(ctx context.Context, d time.Duration, fn func(now time.Time)) {
	Until(ctx, d, func(now time.Time) bool { fn(now); return true })
}

// Until is Every for a loop that may end itself: it returns once fn returns false.
func Until(ctx context.Context, d time.Duration, fn func(now time.Time) bool) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if !fn(now) {
				return
			}
		}
	}
}
