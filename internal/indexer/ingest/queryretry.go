package ingest

import (
	"context"
	"errors"
	"time"
)

// queryAttempts bounds how often one per-block state query (an NFT's owner or URI) is tried
// before its failure fails the height. A height may need dozens of such queries; retried only
// with the height, one failure among them costs them all again, and against an upstream failing
// a quarter of its calls a height with 50 queries would almost never complete.
const queryAttempts = 5

// retryQuery runs q until it succeeds, gives the chain's verdict (ErrQueryFailed), meets a
// height not produced yet, or has failed queryAttempts times, with a short growing pause.
func retryQuery(ctx context.Context, q func() error) error {
	wait := 10 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := q()
		if err == nil || attempt >= queryAttempts || ctx.Err() != nil ||
			errors.Is(err, ErrQueryFailed) || errors.Is(err, ErrFutureHeight) {
			return err
		}
		if !sleep(ctx, wait) {
			return err
		}
		wait *= 2
	}
}
