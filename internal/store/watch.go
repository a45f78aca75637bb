package store

import (
	"context"
	"sync"
	"time"
)

// HeightWatcher tells the API's streams when the indexed height moves. It learns it from the
// store itself (one IndexedHeight poll per interval, shared by every waiter of the process),
// so it works the same on an API replica (`--mode api`) as beside the writer; in the writing
// process a commit also wakes it at once (DB.Written). It polls only while someone waits.
type HeightWatcher struct {
	r interface {
		IndexedHeight(context.Context) (int64, error)
	}
	every time.Duration

	mu      sync.Mutex
	height  int64
	changed chan struct{} // closed when height moves; replaced after
	waiters int
	stop    context.CancelFunc
	done    chan struct{}
}

// NewHeightWatcher watches r's indexed height, polling every interval (default 250 ms).
func NewHeightWatcher(r interface {
	IndexedHeight(context.Context) (int64, error)
}, every time.Duration) *HeightWatcher {
	if every <= 0 {
		every = 250 * time.Millisecond
	}
	return &HeightWatcher{r: r, every: every, changed: make(chan struct{})}
}

// Wait returns the indexed height once it is above after, or ctx's error.
func (w *HeightWatcher) Wait(ctx context.Context, after int64) (int64, error) {
	w.mu.Lock()
	w.waiters++
	if w.waiters == 1 {
		pctx, cancel := context.WithCancel(context.Background())
		w.stop, w.done = cancel, make(chan struct{})
		go w.poll(pctx, w.done)
	}
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.waiters--
		var done chan struct{}
		if w.waiters == 0 {
			w.stop()
			done = w.done
		}
		w.mu.Unlock()
		if done != nil {
			<-done
		}
	}()
	for {
		w.mu.Lock()
		h, ch := w.height, w.changed
		w.mu.Unlock()
		if h > after {
			return h, nil
		}
		// The poller may not have read the height yet: read it here too.
		if cur, err := w.r.IndexedHeight(ctx); err == nil && cur > after {
			w.set(cur)
			return cur, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

func (w *HeightWatcher) set(h int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if h > w.height {
		w.height = h
		close(w.changed)
		w.changed = make(chan struct{})
	}
}

func (w *HeightWatcher) poll(ctx context.Context, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(w.every)
	defer t.Stop()
	var written <-chan struct{}
	wr, _ := w.r.(interface{ Written() <-chan struct{} })
	for {
		if wr != nil {
			// Taken before the read (see DB.Written).
			written = wr.Written()
		}
		if h, err := w.r.IndexedHeight(ctx); err == nil {
			w.set(h)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-written:
		}
	}
}
