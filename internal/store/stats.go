package store

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// analyzer is a backend whose query planner needs table statistics that bulk loads do not
// produce by themselves (PostgreSQL: COPY leaves the tables unanalyzed until autovacuum runs,
// and with autovacuum off or lagging a lookup by tx hash is planned as a parallel scan of the
// whole table instead of an index lookup).
type analyzer interface {
	analyze(ctx context.Context) error
}

// analyzedTables are the tables the writers fill, all of them: a table left out keeps the
// statistics of its empty state, and a statement prepared then keeps its plan, since only an
// ANALYZE of the table makes PostgreSQL plan it again (the rich list's balance read stayed a
// sequential scan while the table grew to 300,000 holders, over a second per block).
// TestAnalyzedTablesCoverSchema keeps the list whole.
const analyzedTables = "block, tx, tx_accounts, tx_msg_types, account_dict, msg_type_dict, " +
	"nft, nft_collection, nft_dict, nft_not_collection, nft_owner_collection, nft_rank_height, nft_rank_token, nft_txs, " +
	"evm_tx, evm_tx_accounts, evm_internal_tx, evm_internal_tx_accounts, evm_internal_account, " +
	"rich_list, rich_list_alias, rich_list_denom, rich_list_rank, transfer, transfer_account, transfer_denom_count, transfer_backfill, extension_table"

// pgAnalyzer refreshes the statistics of the tables the writers fill. It runs on its own pool
// connection, outside any write transaction.
type pgAnalyzer struct{ pg *sqldb.PG }

func (a pgAnalyzer) analyze(ctx context.Context) error {
	_, err := a.pg.Pool().Exec(ctx, "ANALYZE "+analyzedTables)
	return err
}

// Statistics are refreshed after this process's first write, then once the rows written since
// the last refresh reach max(statsFloor, min(statsMinRows, the rows stored at the last
// refresh), statsFraction of the rows stored): while the store is small, each time it doubles,
// and at most once per statsMinGap.
// The doubling matters: the first refresh usually sees nearly empty tables, and PostgreSQL then
// scales the row count it recorded (about zero) to the table's pages, estimating one row
// whatever the table grows to. A store that stayed under statsMinRows (a busy capture of 7,765
// txs) was planned that way for good: the by_account page joined the 20 ranked edges to tx by
// walking all of tx once per edge row (700–1,500 ms instead of 0.3 ms, see docs/performance.md).
const (
	statsFloor    = 100
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

	// minGap is the least time between the starts of two refreshes (statsMinGap): a fast
	// catch-up doubles a small store many times a second, and each ANALYZE of every table is
	// server time the writer waits for. A refresh due sooner starts when the gap ends.
	minGap time.Duration

	mu       sync.Mutex
	pending  int64 // rows written since the last refresh started
	last     int64 // rows stored when the last refresh started
	total    int64 // rows stored at the last write
	started  time.Time
	later    *time.Timer // a refresh due within minGap of the last, waiting
	analyzed bool        // a refresh has started in this process
	running  bool
	runs     int // refreshes finished (for tests)
}

// statsMinGap: on the busy capture (PostgreSQL, every extension) refreshing at every doubling
// held the writer to the top 1.39–1.45 s against 1.26–1.32 s without refreshes
// (docs/performance.md).
const statsMinGap = time.Second

func newStatsKeeper(a analyzer, log *slog.Logger) *statsKeeper {
	ctx, cancel := context.WithCancel(context.Background())
	return &statsKeeper{a: a, log: log, ctx: ctx, cancel: cancel, minGap: statsMinGap}
}

// wrote records a committed write of rows rows into a store now holding total rows, and starts
// a refresh if one is due.
func (k *statsKeeper) wrote(rows, total int64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.pending += rows
	k.total = total
	k.maybeStartLocked()
}

// maybeStartLocked starts a refresh if one is due and none is running or waiting.
func (k *statsKeeper) maybeStartLocked() {
	if k.running || k.later != nil || k.ctx.Err() != nil {
		return
	}
	if k.analyzed && k.pending < max(statsFloor, min(statsMinRows, k.last), k.total*statsFraction/100) {
		return
	}
	if wait := k.minGap - time.Since(k.started); k.analyzed && wait > 0 {
		k.later = time.AfterFunc(wait, func() {
			k.mu.Lock()
			defer k.mu.Unlock()
			k.later = nil
			k.maybeStartLocked()
		})
		return
	}
	k.pending, k.last, k.analyzed, k.running, k.started = 0, k.total, true, true, time.Now()
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

// stop cancels a running or waiting refresh and waits for it.
func (k *statsKeeper) stop() {
	k.mu.Lock()
	k.cancel()
	if k.later != nil {
		k.later.Stop()
		k.later = nil
	}
	k.mu.Unlock()
	k.wg.Wait()
}
