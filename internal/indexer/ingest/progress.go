package ingest

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// tipLag is how close to the chain head counts as caught up: a block or two in flight.
const tipLag = 2

// progress decides what the pipeline says at info level, on the assembler's ticker. While
// catching up: a progress line (height, rates, ETA) every ProgressInterval that wrote blocks.
// On reaching the tip: one "caught up" line. At the tip, only what changes: a stall (warn) and
// its end, falling behind again (warn, then progress lines), an upstream retry storm (warn),
// and a summary at most every SummaryInterval. The per-interval progress line goes on at
// debug level.
type progress struct {
	p *Pipeline

	mu          sync.Mutex // written by the committer, read by the assembler's ticker
	height      int64      // last height written
	blocks, txs int        // written since the last tick
	since       time.Time  // last tick
	lastWrite   time.Time

	atTip            bool
	stalled          bool
	sumBlocks        int // written since the last summary
	sumTxs           int
	sumSince         time.Time
	lastStorm        time.Time
	failuresReported int64
}

func newProgress(p *Pipeline, height int64) *progress {
	now := time.Now()
	return &progress{p: p, height: height, since: now, lastWrite: now, sumSince: now}
}

func (g *progress) written(height int64, blocks, txs int) {
	g.p.indexed.Store(height)
	g.p.health.advancedAt.Store(time.Now())
	g.mu.Lock()
	defer g.mu.Unlock()
	g.height = height
	g.blocks += blocks
	g.txs += txs
	g.sumBlocks += blocks
	g.sumTxs += txs
	g.lastWrite = time.Now()
}

// stormFailures is how many failed fetch attempts in one interval make a retry storm worth a
// warning (single failures are already reported, rate-limited, by the transport).
const stormFailures = 10

func (g *progress) log() {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := time.Now()
	elapsed := now.Sub(g.since).Seconds()
	if elapsed <= 0 {
		return
	}
	log, ctx := g.p.log, context.Background()
	target := g.p.target.Load()
	behind := target - g.height
	bps := float64(g.blocks) / elapsed
	tps := float64(g.txs) / elapsed
	attrs := []any{"height", g.height, "target", target, "blocks_per_sec", round1(bps), "txs_per_sec", round1(tps)}

	switch {
	case !g.atTip && target > 0 && behind <= tipLag:
		g.atTip, g.sumBlocks, g.sumTxs, g.sumSince = true, 0, 0, now
		log.Info("ingest caught up: following the chain tip", "height", g.height, "target", target)
	case g.atTip && behind > g.p.cfg.ReadyMaxLag:
		g.atTip = false
		log.Warn("ingest fell behind the chain tip", "height", g.height, "target", target, "behind", behind)
	}

	// A progress line says what was written: an interval that wrote nothing (a chain that
	// does not answer, or a head not read yet: target 0) has nothing to say at info. The
	// stall warning and the upstream's own lines (package reach) say why.
	level := slog.LevelInfo
	if g.atTip || g.blocks == 0 {
		level = slog.LevelDebug
	} else if behind > 1 && bps > 0 {
		attrs = append(attrs, "eta", time.Duration(float64(behind)/bps*float64(time.Second)).Round(time.Second).String())
	}
	log.Log(ctx, level, "ingest progress", attrs...)

	stallAfter := g.p.cfg.ReadyStaleAfter
	switch {
	case !g.stalled && behind > 0 && now.Sub(g.lastWrite) > stallAfter:
		g.stalled = true
		log.Warn("ingest stalled: no block written", "for", now.Sub(g.lastWrite).Round(time.Second).String(), "height", g.height, "target", target)
	case g.stalled && g.blocks > 0:
		g.stalled = false
		log.Info("ingest resumed", "height", g.height, "target", target)
	}

	failures := g.p.health.fetchFailures.Load()
	if n := failures - g.failuresReported; n >= stormFailures && now.Sub(g.lastStorm) >= g.p.cfg.SummaryInterval {
		g.lastStorm = now
		log.Warn("upstream retry storm", "failed_fetches", n, "over", time.Duration(elapsed*float64(time.Second)).Round(time.Millisecond).String(), "height", g.height, "target", target)
	}
	g.failuresReported = failures

	if g.atTip && now.Sub(g.sumSince) >= g.p.cfg.SummaryInterval {
		log.Info("ingest summary", "height", g.height, "target", target, "blocks", g.sumBlocks, "txs", g.sumTxs,
			"over", now.Sub(g.sumSince).Round(time.Second).String())
		g.sumBlocks, g.sumTxs, g.sumSince = 0, 0, now
	}
	g.blocks, g.txs, g.since = 0, 0, now
}

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }

// warnLimit lets one warning of a kind through per interval and counts the ones it holds back,
// so a failing upstream is reported at once without a line per retried height.
type warnLimit struct {
	mu         sync.Mutex
	last       map[string]time.Time
	suppressed map[string]int
}

// warnEvery is the interval of warnLimit.
const warnEvery = 10 * time.Second

func (w *warnLimit) warn(log *slog.Logger, key, msg string, attrs ...any) {
	w.mu.Lock()
	now := time.Now()
	if w.last == nil {
		w.last, w.suppressed = map[string]time.Time{}, map[string]int{}
	}
	if last, ok := w.last[key]; ok && now.Sub(last) < warnEvery {
		w.suppressed[key]++
		w.mu.Unlock()
		log.Debug(msg, attrs...)
		return
	}
	n := w.suppressed[key]
	w.last[key], w.suppressed[key] = now, 0
	w.mu.Unlock()
	log.Warn(msg, append(attrs, "similar_since_last_warning", n)...)
}
