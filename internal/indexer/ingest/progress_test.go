package ingest

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// lines records every log record at or above a level.
type lines struct {
	mu   sync.Mutex
	min  slog.Level
	recs []slog.Record
}

func (l *lines) Enabled(_ context.Context, lv slog.Level) bool { return lv >= l.min }
func (l *lines) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recs = append(l.recs, r)
	return nil
}
func (l *lines) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *lines) WithGroup(string) slog.Handler      { return l }

// since returns the messages logged after the first record with message first (inclusive).
func (l *lines) since(first string) (msgs []string, found bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.recs {
		found = found || r.Message == first
		if found {
			msgs = append(msgs, r.Level.String()+" "+r.Message)
		}
	}
	return msgs, found
}

func (l *lines) count(msg string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, r := range l.recs {
		if r.Message == msg {
			n++
		}
	}
	return n
}

const caughtUp = "ingest caught up: following the chain tip"

// TestQuietAtTheTip: catching up logs progress; reaching the tip logs one line; following the
// tip through many progress intervals logs nothing more at info unless a summary is due.
func TestQuietAtTheTip(t *testing.T) {
	for _, tc := range []struct {
		name    string
		summary time.Duration
	}{
		{"no_summary_due", time.Minute},
		{"summaries", 200 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := &slowChain{fakeChain: newFakeChain(300, 0), delay: 2 * time.Millisecond}
			w := &memWriter{}
			cfg := fastConfig()
			cfg.ProgressInterval = 15 * time.Millisecond
			cfg.SummaryInterval = tc.summary
			rec := &lines{min: slog.LevelInfo}
			p, err := New(cfg, src, w, slog.New(rec), nil)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- p.Run(ctx) }()
			defer func() {
				cancel()
				if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
					t.Errorf("pipeline: %v", err)
				}
			}()
			waitFor(t, func() bool { _, ok := rec.since(caughtUp); return ok })
			start := time.Now()
			for range 60 {
				src.head.Add(1)
				time.Sleep(10 * time.Millisecond)
			}
			waitFor(t, func() bool { return p.indexed.Load() == 360 })
			atTip, _ := rec.since(caughtUp)
			// The caught-up line, then only the summaries due in the time spent at the tip.
			due := int(time.Since(start) / tc.summary)
			summaries := 0
			for _, m := range atTip[1:] {
				if m != "INFO ingest summary" {
					t.Errorf("unexpected line at the tip: %q in %v", m, atTip)
				}
				summaries++
			}
			if summaries > due+1 || (due >= 2 && summaries == 0) {
				t.Errorf("%d summaries in %v at the tip with one due every %v: %v", summaries, time.Since(start), tc.summary, atTip)
			}
			if n := rec.count("ingest progress"); n == 0 {
				t.Error("no progress line while catching up 300 blocks")
			}
			for _, m := range atTip {
				if m == "INFO ingest progress" {
					t.Errorf("progress at info level at the tip: %v", atTip)
					break
				}
			}
		})
	}
}

// TestStallAndStormWarnings: a writer that stops while the chain moves on is one stall
// warning (and one line when it resumes); a burst of failed fetches is one storm warning.
func TestStallAndStormWarnings(t *testing.T) {
	src := &downChain{fakeChain: newFakeChain(10, 0)}
	w := &hangWriter{}
	cfg := healthConfig()
	cfg.ProgressInterval = 10 * time.Millisecond
	cfg.SummaryInterval = time.Hour
	rec := &lines{min: slog.LevelInfo}
	p, err := New(cfg, src, w, slog.New(rec), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("pipeline: %v", err)
		}
	}()
	waitFor(t, func() bool { _, ok := rec.since(caughtUp); return ok })
	w.hang.Store(true)
	src.head.Store(12)
	waitFor(t, func() bool { return rec.count("ingest stalled: no block written") == 1 })
	time.Sleep(5 * cfg.ReadyStaleAfter)
	if n := rec.count("ingest stalled: no block written"); n != 1 {
		t.Errorf("%d stall warnings for one stall", n)
	}

	for range 3 * stormFailures {
		p.health.fetchFailures.Add(1)
	}
	waitFor(t, func() bool { return rec.count("upstream retry storm") == 1 })
	for range 3 * stormFailures {
		p.health.fetchFailures.Add(1)
	}
	time.Sleep(5 * cfg.ProgressInterval)
	if n := rec.count("upstream retry storm"); n != 1 {
		t.Errorf("%d storm warnings within one summary interval", n)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
	}
}

// TestQuietWhileTheChainIsAway: a chain whose head is never read (its node down from the
// start) gets no progress line at info, however many progress intervals pass.
func TestQuietWhileTheChainIsAway(t *testing.T) {
	src := &downChain{fakeChain: newFakeChain(10, 0)}
	src.down.Store(true)
	cfg := healthConfig()
	cfg.ProgressInterval = 5 * time.Millisecond
	rec := &lines{min: slog.LevelInfo}
	p, err := New(cfg, src, &memWriter{}, slog.New(rec), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	time.Sleep(100 * cfg.ProgressInterval)
	if n := rec.count("ingest progress"); n != 0 {
		t.Errorf("%d progress lines at info while nothing was written", n)
	}
	// Back: blocks are written and progress is said again until the tip.
	src.down.Store(false)
	waitFor(t, func() bool { _, ok := rec.since(caughtUp); return ok })
	cancel()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("pipeline: %v", err)
	}
}
