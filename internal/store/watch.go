package store

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// HeightWatcher tells the API's streams when the indexed height moves. It learns it from the
// store itself, so it works the same on an API replica (`--mode api`) as beside the writer:
// on PostgreSQL from the NOTIFY each writer's commit sends (DB.ListenIndexed, one connection
// per process), falling back to one IndexedHeight poll per interval while that connection is
// down (and polling rarely while it is up, should a notification ever be lost); on SQLite by
// polling, and in the writing process a commit also wakes it at once (DB.Written). It watches
// only while someone waits.
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

	listening atomic.Bool // the NOTIFY connection is up
}

// listener is the push side of a store (DB.ListenIndexed on PostgreSQL).
type listener interface {
	ListenIndexed(ctx context.Context, onHeight func(int64)) error
}

// listenSafetyPolls: while notifications arrive, the height is still polled every this many
// intervals, so a notification lost in some way nobody foresaw costs seconds, not a stall.
const listenSafetyPolls = 20

// Listening reports whether the watcher is currently fed by store notifications.
func (w *HeightWatcher) Listening() bool { return w.listening.Load() }

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

// set records the height last read. It follows the store down too: a store dropped to index
// another chain (DB.Reset) starts over from 0, and a watcher that kept the old top would wake
// every waiter below it at once, again and again, until the new chain passed it.
func (w *HeightWatcher) set(h int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if h < w.height {
		w.height = h // nobody waits for a lower height: no one to wake
		return
	}
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
	var listenDone chan struct{}
	if l, ok := w.r.(listener); ok {
		listenDone = make(chan struct{})
		go w.listen(ctx, l, listenDone)
		defer func() { <-listenDone }()
	}
	for tick := 0; ; tick++ {
		if wr != nil {
			// Taken before the read (see DB.Written).
			written = wr.Written()
		}
		if !w.listening.Load() || tick%listenSafetyPolls == 0 {
			if h, err := w.r.IndexedHeight(ctx); err == nil {
				w.set(h)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-written:
		}
	}
}

// listen keeps the store's notification connection up while the watcher runs: on loss it
// reconnects after a pause that doubles up to 5 s (the poller covers the gap meanwhile).
func (w *HeightWatcher) listen(ctx context.Context, l listener, done chan struct{}) {
	defer close(done)
	defer w.listening.Store(false)
	pause := 100 * time.Millisecond
	for {
		start := time.Now()
		err := l.ListenIndexed(ctx, func(h int64) {
			w.listening.Store(true)
			w.set(h)
		})
		w.listening.Store(false)
		if ctx.Err() != nil || errors.Is(err, ErrNoListen) {
			return
		}
		if time.Since(start) > time.Minute {
			pause = 100 * time.Millisecond
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		pause = min(2*pause, 5*time.Second)
	}
}
