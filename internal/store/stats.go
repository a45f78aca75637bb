package store

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// analyzer is a backend whose query planner needs table statistics that bulk loads do not
// produce by themselves (PostgreSQL: COPY leaves the tables unanalyzed until autovacuum runs,
// and with autovacuum off or lagging a lookup by tx hash is planned as a parallel scan of the
// whole table instead of an index lookup).
type analyzer interface {
	analyze(ctx context.Context) error
}

// Statistics are refreshed once the rows written since the last refresh reach
// max(statsMinRows, statsFraction of the rows stored), and always after this process's
// first write.
const (
	statsMinRows  = 50_000
	statsFraction = 10 // percent
)

// statsKeeper runs ANALYZE after bulk writes, in the background: ANALYZE takes a lock that does
// not conflict with inserts, so the writer continues at once instead of waiting the seconds a
// large table's sample takes. At most one refresh runs at a time; rows written meanwhile count
// towards the next one.
type statsKeeper struct {
	a   analyzer
	log *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	pending  int64 // rows written since the last refresh started
	analyzed bool  // a refresh has started in this process
	running  bool
	runs     int // refreshes finished (for tests)
}

func newStatsKeeper(a analyzer, log *slog.Logger) *statsKeeper {
	ctx, cancel := context.WithCancel(context.Background())
	return &statsKeeper{a: a, log: log, ctx: ctx, cancel: cancel}
}

// wrote records a committed write of rows rows into a store now holding total rows, and starts
// a refresh if one is due.
func (k *statsKeeper) wrote(rows, total int64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.pending += rows
	if k.running || k.ctx.Err() != nil {
		return
	}
	if k.analyzed && k.pending < max(statsMinRows, total*statsFraction/100) {
		return
	}
	k.pending, k.analyzed, k.running = 0, true, true
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		start := time.Now()
		err := k.a.analyze(k.ctx)
		if err != nil && k.ctx.Err() == nil {
			k.log.Warn("refresh planner statistics", "err", err)
		} else if err == nil {
			k.log.Debug("planner statistics refreshed", "took", time.Since(start))
		}
		k.mu.Lock()
		k.running = false
		k.runs++
		k.mu.Unlock()
	}()
}

// wait blocks until no refresh is running.
func (k *statsKeeper) wait() { k.wg.Wait() }

// stop cancels a running refresh and waits for it.
func (k *statsKeeper) stop() {
	k.mu.Lock()
	k.cancel()
	k.mu.Unlock()
	k.wg.Wait()
}
