package httpx

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// scripted answers each request by its 1-based arrival number: hang (until the client gives
// up), sleep a while, or answer at once.
func scripted(t *testing.T, step func(n int64) (hang bool, sleep time.Duration)) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hang, sleep := step(n.Add(1))
		if hang {
			<-r.Context().Done()
			return
		}
		time.Sleep(sleep)
		w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func warm(t *testing.T, c *Client, method string, n int) {
	t.Helper()
	for range n {
		if _, err := c.Do(context.Background(), Request{Method: method, Path: "/x", ExpectJSON: true}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHedging: a GET that hangs past the endpoint's observed latency is answered by a hedged
// copy long before the timeout, warm or cold; a POST is never hedged.
func TestHedging(t *testing.T) {
	for _, tc := range []struct {
		name      string
		warmup    int
		method    string
		maxTime   time.Duration
		wantHedge bool
	}{
		{"warm_get", minSamples, http.MethodGet, time.Second, true},
		{"cold_get", 0, http.MethodGet, 2 * time.Second, true}, // hedged after timeout/10
		{"post_not_hedged", minSamples, http.MethodPost, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hangAt := int64(tc.warmup + 1)
			srv, _ := scripted(t, func(n int64) (bool, time.Duration) { return n == hangAt, 0 })
			c, _ := New(srv.URL, WithTimeout(10*time.Second), WithMaxAttempts(1), WithBackoff(time.Millisecond, time.Millisecond))
			warm(t, c, http.MethodGet, tc.warmup)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			start := time.Now()
			_, err := c.Do(ctx, Request{Method: tc.method, Path: "/x", ExpectJSON: true})
			took := time.Since(start)
			if tc.wantHedge {
				if err != nil || took > tc.maxTime || c.Hedges() < 1 {
					t.Fatalf("err %v after %v with %d hedges; want an answer within %v", err, took, c.Hedges(), tc.maxTime)
				}
				return
			}
			if err == nil || c.Hedges() != 0 {
				t.Fatalf("a POST was hedged (%d) or answered (%v)", c.Hedges(), err)
			}
		})
	}
}

// TestAdaptiveTimeout: once the endpoint's latency is known, a read times out at a multiple
// of its p99 instead of the configured 10 s, and the next attempt of the same request waits
// twice as long, so a slow but valid answer is still reached; a POST keeps the configured
// timeout.
func TestAdaptiveTimeout(t *testing.T) {
	slowAt := int64(minSamples + 1)
	srv, _ := scripted(t, func(k int64) (bool, time.Duration) {
		if k >= slowAt {
			return false, 400 * time.Millisecond // over the 250 ms floor, under twice it
		}
		return false, 0
	})
	var timedOut, answered atomic.Int64
	hooks := WithHooks(Hooks{OnAttempt: func(a Attempt) {
		switch {
		case errors.Is(a.Err, context.DeadlineExceeded):
			timedOut.Add(1)
		case a.Err == nil:
			answered.Add(1)
		}
	}})
	c, _ := New(srv.URL, WithTimeout(10*time.Second), WithMaxAttempts(3), WithBackoff(time.Millisecond, time.Millisecond), hooks)
	warm(t, c, http.MethodGet, minSamples)
	answered.Store(0)
	start := time.Now()
	if _, err := c.Do(context.Background(), Request{Path: "/x", ExpectJSON: true}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); timedOut.Load() == 0 || answered.Load() != 1 || took > 2*time.Second {
		t.Errorf("%d timed-out attempts, %d answers, %v; want the first round cut at the adaptive timeout and the next answered", timedOut.Load(), answered.Load(), took)
	}
	timedOut.Store(0)
	if _, err := c.Do(context.Background(), Request{Method: http.MethodPost, Path: "/x", ExpectJSON: true}); err != nil || timedOut.Load() != 0 {
		t.Errorf("POST: %v, %d timed-out attempts; want the configured timeout", err, timedOut.Load())
	}
}

// TestFailingURLUsedLess: of two URLs, one that keeps failing cools down and is skipped, so
// most requests go straight to the healthy one.
func TestFailingURLUsedLess(t *testing.T) {
	var bad atomic.Int64
	dead := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bad.Add(1)
		http.Error(w, "down", http.StatusInternalServerError)
	}))
	defer dead.Close()
	// The healthy URL fails now and then too, which rotates the client back to the other.
	var k atomic.Int64
	good := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if k.Add(1)%4 == 0 {
			http.Error(w, "blip", http.StatusInternalServerError)
			return
		}
		w.Write([]byte(`{}`))
	}))
	defer good.Close()
	c, _ := New(dead.URL+","+good.URL, WithBackoff(time.Millisecond, time.Millisecond), WithMaxAttempts(0))
	for range 50 {
		if _, err := c.Do(context.Background(), Request{Path: "/x", ExpectJSON: true}); err != nil {
			t.Fatal(err)
		}
	}
	if n := bad.Load(); n > 5 {
		t.Errorf("the failing URL got %d attempts over 50 requests", n)
	}
}
