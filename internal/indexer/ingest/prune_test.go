package ingest

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/store"
)

type fakePruner struct {
	mu    sync.Mutex
	calls []int64
	fail  int
}

func (f *fakePruner) Prune(_ context.Context, keep, _ int64) (store.PruneResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, keep)
	if len(f.calls) <= f.fail {
		return store.PruneResult{}, errors.New("database away")
	}
	return store.PruneResult{From: 1, To: 2, Batches: 1}, nil
}

func (f *fakePruner) n() int { f.mu.Lock(); defer f.mu.Unlock(); return len(f.calls) }

// TestRunPrunerRetriesAndStops: failures do not stop the pruner, it prunes with the
// configured keep, and it returns when its context ends.
func TestRunPrunerRetriesAndStops(t *testing.T) {
	f := &fakePruner{fail: 2}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- RunPruner(ctx, f, 600, time.Millisecond, slog.New(slog.DiscardHandler)) }()
	deadline := time.Now().Add(5 * time.Second)
	for f.n() < 4 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if f.n() < 4 || f.calls[3] != 600 {
		t.Fatalf("calls %v", f.calls)
	}
}

// TestRunPrunerOff: keep 0 never prunes.
func TestRunPrunerOff(t *testing.T) {
	f := &fakePruner{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := RunPruner(ctx, f, 0, time.Millisecond, slog.New(slog.DiscardHandler)); err != nil || f.n() != 0 {
		t.Fatalf("%v, %d calls", err, f.n())
	}
}
