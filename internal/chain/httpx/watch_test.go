package httpx

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/testutil"
)

// recWatch records what a client tells its Watcher.
type recWatch struct {
	mu         sync.Mutex
	failed, ok []string
}

func (w *recWatch) Failed(url string, _ error) {
	w.mu.Lock()
	w.failed = append(w.failed, url)
	w.mu.Unlock()
}
func (w *recWatch) OK(url string) { w.mu.Lock(); w.ok = append(w.ok, url); w.mu.Unlock() }

// TestWatchTakesOverFailureLogs: with a Watcher every retried failure and every answer is
// reported to it, and the client itself warns about none of them (the watch logs an outage
// once, package reach).
func TestWatchTakesOverFailureLogs(t *testing.T) {
	srv, _ := flaky(t, []string{"500", "500", "500"})
	var logs testutil.SyncBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	w := &recWatch{}
	c, _ := New(srv.URL+","+srv.URL+"/", fast(WithLogger(log), WithMaxAttempts(0), WithWatch(w))...)
	if _, err := c.GetJSON(context.Background(), "/x", nil, nil); err != nil {
		t.Fatal(err)
	}
	if len(w.failed) != 3 || len(w.ok) != 1 {
		t.Errorf("watch saw %d failures and %d answers, want 3 and 1", len(w.failed), len(w.ok))
	}
	if s := logs.String(); strings.Contains(s, "level=WARN") {
		t.Errorf("a watched client warned on its own:\n%s", s)
	}
}

// TestOutageBackoff: a URL failing most of its attempts backs off up to the outage bound; one
// that mostly answers keeps the usual bound.
func TestOutageBackoff(t *testing.T) {
	c, _ := New("http://127.0.0.1:1", WithBackoff(100*time.Millisecond, time.Second), WithOutageBackoff(time.Minute))
	for range 10 {
		c.eps[0].failed(time.Now())
	}
	if d := c.backoff(20, 0, 0); d < 48*time.Second || d > 72*time.Second {
		t.Errorf("pause after 20 failures of a dead URL: %v, want about a minute", d)
	}
	for range 20 {
		c.eps[0].succeeded("GET /x", time.Millisecond)
	}
	if d := c.backoff(20, 0, 429); d > 1200*time.Millisecond {
		t.Errorf("pause of an answering URL: %v, want at most the 1 s bound", d)
	}
	plain, _ := New("http://127.0.0.1:1", WithBackoff(100*time.Millisecond, time.Second))
	for range 10 {
		plain.eps[0].failed(time.Now())
	}
	if d := plain.backoff(20, 0, 0); d > 1200*time.Millisecond {
		t.Errorf("pause without an outage bound: %v, want at most 1 s", d)
	}
}
