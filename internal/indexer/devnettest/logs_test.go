package devnettest

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/indexer/profile"
)

// infoLines records the info-and-above lines of a logger.
type infoLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *infoLines) Enabled(_ context.Context, lv slog.Level) bool { return lv >= slog.LevelInfo }
func (l *infoLines) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, r.Level.String()+" "+r.Message)
	return nil
}
func (l *infoLines) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *infoLines) WithGroup(string) slog.Handler      { return l }

func (l *infoLines) snapshot() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// TestQuietFollower: an indexer that has caught up with a devnet rollup and follows its tip
// for 60 blocks writes at most 3 info lines (pipeline and transport share the logger), with
// the progress interval far shorter than the time spent at the tip, so a line per interval
// would show.
func TestQuietFollower(t *testing.T) {
	net := startNet(t, netConfig())
	if err := net.ProduceBlocks(t.Context(), 10); err != nil {
		t.Fatal(err)
	}
	r := rollups[0]
	ep := net.Endpoints()[r.chainID]
	db := openStore(t, backends[0].dsn(t))
	rec := &infoLines{}
	log := slog.New(rec)
	src, err := ingest.DialSource(ep.RPC, ep.REST, nil, httpx.WithLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	// The rollup's whole profile, as `rollgate indexer` runs it.
	if _, err := withEVM(ep, r, src, nil, 0, []httpx.Option{httpx.WithLogger(log)}); err != nil {
		t.Fatal(err)
	}
	p, err := ingest.New(profile.Ingest(ingest.Config{ChainID: r.chainID, VMType: r.kind, PollInterval: 10 * time.Millisecond,
		ProgressInterval: 50 * time.Millisecond}, profile.Options{}), src, db, log, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()

	const caughtUp = "INFO ingest caught up: following the chain tip"
	atTip := func() []string {
		lines := rec.snapshot()
		for i, l := range lines {
			if l == caughtUp {
				return lines[i:]
			}
		}
		return nil
	}
	waitUntil(t, func() bool { return atTip() != nil })
	start := time.Now()
	for range 60 {
		if err := net.ProduceBlocks(ctx, 1); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	waitUntil(t, func() bool { h, _ := db.IndexedHeight(ctx); return h == 11+60 })
	lines := atTip()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(lines) > 3 {
		t.Errorf("%d info lines while following 60 blocks (%v at the tip):\n%s", len(lines), time.Since(start), strings.Join(lines, "\n"))
	}
	t.Logf("%d info line(s) while following 60 blocks for %v: %v", len(lines), time.Since(start).Round(time.Millisecond), lines)
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(timeout); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
	}
}

// TestBlockHashMatchesBlock: the header-only hash the pipeline asks for after a failed
// attempt (ClientSource.BlockHash, over /blockchain) is the block's block_id.hash at every
// height, and a height the node has not produced is a future height, as for /block.
func TestBlockHashMatchesBlock(t *testing.T) {
	net := startNet(t, netConfig())
	if err := net.ProduceBlocks(t.Context(), 5); err != nil {
		t.Fatal(err)
	}
	ep := net.Endpoints()[rollups[0].chainID]
	src, err := ingest.DialSource(ep.RPC, ep.REST, nil)
	if err != nil {
		t.Fatal(err)
	}
	top, err := src.LatestHeight(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for h := int64(1); h <= top; h++ {
		b, err := src.Block(t.Context(), h)
		if err != nil {
			t.Fatal(err)
		}
		got, err := src.BlockHash(t.Context(), h)
		if err != nil || !bytes.Equal(got, b.Hash) || len(got) != 32 {
			t.Errorf("height %d: BlockHash %X (%v), want the block's %X", h, got, err, b.Hash)
		}
	}
	if _, err := src.BlockHash(t.Context(), top+1000); !errors.Is(err, ingest.ErrFutureHeight) {
		t.Errorf("BlockHash of a height not produced: %v, want ErrFutureHeight", err)
	}
}
