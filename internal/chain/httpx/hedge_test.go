package httpx

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
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
	// The round that answers is hedged too: copies sent a hedge delay apart all sleep 400 ms, so
	// on a loaded machine a second one may answer before the winner cancels it. At least one
	// answer, after timed-out attempts, long before the configured 10 s, is what shows the cut.
	if took := time.Since(start); timedOut.Load() == 0 || answered.Load() < 1 || took > 2*time.Second {
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

// TestBackoffFollowsHealth: the pause before a retry stays short while most of the URL's recent
// attempts succeed (a failure is weather), grows once half or more fail (trouble), and always
// grows after a 429.
func TestBackoffFollowsHealth(t *testing.T) {
	const min = 100 * time.Millisecond
	short := func(d time.Duration) bool { return d <= min/10*12/10 }
	for _, tc := range []struct {
		name      string
		outcomes  string // oldest first: o answered, x failed
		attempt   int
		status    int
		wantShort bool
	}{
		{"first retry, healthy", "oooooooooox", 1, 500, true},
		{"first retry, failing", "xxxxxxxxxx", 1, 0, true},
		{"third retry, a quarter failing", "oooxoooxoooxoxxx", 3, 500, true},
		{"third retry, half failing", "oxoxoxoxoxoxoxox", 3, 0, false},
		{"third retry, all failing", "xxx", 3, 0, false},
		{"third retry, healthy but 429", "ooooooooooooooox", 3, http.StatusTooManyRequests, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := New("http://127.0.0.1:1", WithBackoff(min, 10*min))
			for _, o := range tc.outcomes {
				if o == 'x' {
					c.eps[0].failed(time.Now())
				} else {
					c.eps[0].succeeded("GET /x", time.Millisecond)
				}
			}
			if d := c.backoff(tc.attempt, 0, tc.status); short(d) != tc.wantShort {
				t.Errorf("pause %v; want short (≈%v): %v", d, min/10, tc.wantShort)
			}
		})
	}
}

// TestFailedHedgeRelaunches: when a hedged copy fails fast while the first attempt hangs, the
// next copy goes out at once rather than one hedge delay later, so the request is answered in
// about one hedge delay instead of two.
func TestFailedHedgeRelaunches(t *testing.T) {
	const lat = 200 * time.Millisecond // the endpoint's usual latency: the hedge delay
	// The warm-up answers every request (hedged copies included, which a loaded machine
	// brings) after lat; then the measured request's first attempt hangs, its first hedge
	// fails at once and the next one answers.
	var warm atomic.Bool
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !warm.Load() {
			time.Sleep(lat)
			w.Write([]byte(`{}`))
			return
		}
		switch n.Add(1) {
		case 1:
			<-r.Context().Done() // hangs
			return
		case 2:
			http.Error(w, "blip", http.StatusBadGateway) // the first hedge fails at once
			return
		}
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	c, _ := New(srv.URL, WithTimeout(10*time.Second), WithMaxAttempts(1))
	var wg sync.WaitGroup
	for range minSamples {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Do(context.Background(), Request{Path: "/x", ExpectJSON: true}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	warm.Store(true)
	before := c.Hedges()
	start := time.Now()
	_, err := c.Do(context.Background(), Request{Path: "/x", ExpectJSON: true})
	if took, hedges := time.Since(start), c.Hedges()-before; err != nil || took >= 2*lat || hedges != 2 {
		t.Errorf("err %v after %v with %d hedges; want an answer from the second hedge well before %v", err, took, hedges, 2*lat)
	}
}

// TestHedgeBudget: when every answer comes late (a saturated upstream, not one hung request),
// the timer's hedges stay within the budget, the saving it starts with plus 5 % of the
// requests, instead of up to three copies of every request; the first hung request after
// the warm-up is still hedged at once from the saving.
func TestHedgeBudget(t *testing.T) {
	var slow atomic.Bool
	srv, _ := scripted(t, func(int64) (bool, time.Duration) {
		if slow.Load() {
			return false, 20 * time.Millisecond // every answer far past the warm p95
		}
		return false, 0
	})
	c, _ := New(srv.URL, WithTimeout(10*time.Second), WithMaxAttempts(1), WithBackoff(time.Millisecond, time.Millisecond))
	warm(t, c, http.MethodGet, minSamples)
	slow.Store(true)
	const workers, each = 8, 40
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if _, err := c.Do(context.Background(), Request{Path: "/x", ExpectJSON: true}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	n := int64(workers * each)
	limit := int64(hedgeBurst/1000) + n*hedgeShare/1000 + 1
	if h := c.Hedges(); h > limit || h < int64(hedgeBurst/1000) {
		t.Errorf("%d hedged copies for %d late requests; want the saving (%d) spent and at most %d in all", h, n, hedgeBurst/1000, limit)
	}
}
