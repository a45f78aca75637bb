package ingest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/rollgate/rollgate/internal/store"
)

// shortLivedWriter models sessions that are ended again and again (a flapping proxy, a
// failover loop, pg_terminate_backend in a loop): while faulty, a write holding more than
// budget heights outlives its session and fails as a terminated one does.
type shortLivedWriter struct {
	memWriter
	budget int
	faulty func(indexed int64) bool

	mu     sync.Mutex
	failed int
}

func (w *shortLivedWriter) WriteBlocks(ctx context.Context, bundles []store.BlockBundle) error {
	h, _ := w.memWriter.IndexedHeight(ctx)
	if w.faulty(h) && len(bundles) > w.budget {
		w.mu.Lock()
		w.failed++
		w.mu.Unlock()
		return &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}
	}
	return w.memWriter.WriteBlocks(ctx, bundles)
}

// TestWriteSplitsUnderRepeatedFaults: while no transaction of more than three heights can
// commit between two faults, the committer halves its writes until they commit, and once the
// faults stop it grows them back to full batches. Every height is stored as in a clean run.
func TestWriteSplitsUnderRepeatedFaults(t *testing.T) {
	const stop, faultyUntil = 600, 300
	w := &shortLivedWriter{memWriter: memWriter{delay: 2 * time.Millisecond}, budget: 3,
		faulty: func(h int64) bool { return h < faultyUntil }}
	cfg := fastConfig()
	cfg.StopAtHeight = stop
	cfg.MaxBatchBlocks = 100
	runPipeline(t, cfg, newFakeChain(stop, 0), w, nil)
	checkChain(t, &w.memWriter, 1, stop)
	if w.failed == 0 {
		t.Fatal("no write failed: the test did not exercise the faults")
	}
	grown, at := 0, int64(0)
	for _, n := range w.batches {
		at += int64(n)
		if at > faultyUntil+int64(n) && n > grown {
			grown = n
		}
	}
	if grown <= 2*w.budget {
		t.Errorf("after the faults the largest write held %d heights: the size did not grow back (batches %v)", grown, w.batches)
	}
}
