package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/store/storetest"
	"github.com/rollgate/rollgate/internal/testutil"
)

// countingReader counts the indexed-height reads a HeightWatcher makes.
type countingReader struct {
	store.Reader
	reads atomic.Int64
}

func (c *countingReader) IndexedHeight(ctx context.Context) (int64, error) {
	c.reads.Add(1)
	return c.Reader.IndexedHeight(ctx)
}

// TestHeightWatcher: many waiters on a read-only handle (an API replica) learn of a block the
// writer commits, through one shared poller, and the poller stops when nobody waits.
func TestHeightWatcher(t *testing.T) {
	for name, dsn := range map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "w.db") },
		"postgres": func(t *testing.T) string { return testutil.PostgresDSN(t) },
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			d := dsn(t)
			w, err := store.Open(ctx, d, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if err := storetest.Fill(ctx, w, 10, storetest.Options{}); err != nil {
				t.Fatal(err)
			}
			r, err := store.OpenReader(ctx, d, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			cr := &countingReader{Reader: r}
			hw := store.NewHeightWatcher(cr, 20*time.Millisecond)
			const waiters = 50
			goroutines := runtime.NumGoroutine()
			var wg sync.WaitGroup
			got := make([]int64, waiters)
			for i := range waiters {
				wg.Add(1)
				go func() {
					defer wg.Done()
					wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
					defer cancel()
					got[i], _ = hw.Wait(wctx, 1)
				}()
			}
			time.Sleep(300 * time.Millisecond) // about 15 polls
			if err := storetest.Fill(ctx, w, 10, storetest.Options{}); err != nil {
				t.Fatal(err)
			}
			wg.Wait()
			for i, h := range got {
				if h != 2 {
					t.Fatalf("waiter %d woke at height %d", i, h)
				}
			}
			// One read per waiter on entry, then one poller for all: far from 50 × 15.
			if n := cr.reads.Load(); n > 2*waiters+40 {
				t.Errorf("%d height reads for %d waiters: the poll is not shared", n, waiters)
			}
			cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
			defer cancel()
			if _, err := hw.Wait(cctx, 2); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("wait past the tip: %v", err)
			}
			time.Sleep(50 * time.Millisecond)
			if n := runtime.NumGoroutine(); n > goroutines+2 {
				t.Errorf("%d goroutines after the waiters left, %d before", n, goroutines)
			}
		})
	}
}
