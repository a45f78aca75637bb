package ingest

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// progress reports catch-up speed and ETA through the logger every ProgressInterval.
type progress struct {
	p *Pipeline

	mu          sync.Mutex // written by the committer, read by the assembler's ticker
	height      int64      // last height written
	blocks, txs int        // written since the last report
	since       time.Time
}

func newProgress(p *Pipeline, height int64) *progress {
	return &progress{p: p, height: height, since: time.Now()}
}

func (g *progress) written(height int64, blocks, txs int) {
	g.p.indexed.Store(height)
	g.p.health.advancedAt.Store(time.Now())
	g.mu.Lock()
	defer g.mu.Unlock()
	g.height = height
	g.blocks += blocks
	g.txs += txs
}

func (g *progress) log() {
	g.mu.Lock()
	defer g.mu.Unlock()
	elapsed := time.Since(g.since).Seconds()
	if elapsed <= 0 {
		return
	}
	target := g.p.target.Load()
	bps := float64(g.blocks) / elapsed
	tps := float64(g.txs) / elapsed
	behind := target - g.height
	level := slog.LevelInfo
	if behind <= 1 && g.blocks <= int(elapsed)+1 {
		// Following the tip: one line every few seconds is noise.
		level = slog.LevelDebug
	}
	attrs := []any{"height", g.height, "target", target, "blocks_per_sec", round1(bps), "txs_per_sec", round1(tps)}
	if behind > 1 && bps > 0 {
		attrs = append(attrs, "eta", time.Duration(float64(behind)/bps*float64(time.Second)).Round(time.Second).String())
	}
	g.p.log.Log(context.Background(), level, "ingest progress", attrs...)
	g.blocks, g.txs, g.since = 0, 0, time.Now()
}

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }
