package httpx

import (
	"context"
	"math/bits"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// What the client learns about each base URL, and how it uses it:
//
//   - hedging: an idempotent request (GET, HEAD) still unanswered after the endpoint's observed
//     p95 latency is sent a second time, to the next healthy URL (or the same one), and the
//     first good answer wins; a hung or slow attempt then costs about p95, not the timeout;
//   - adaptive timeouts: an idempotent attempt's timeout is a multiple of the endpoint's observed p99
//     (never above the configured timeout, never below minAdaptiveTimeout), doubled for each
//     timed-out attempt of the same request, so a slow but valid answer is still reached;
//   - health: a URL that fails several times in a row is skipped for a while that grows with
//     its failures (as long as another URL is not also cooling down);
//   - retry pauses: while most of a URL's recent attempts succeed, a failure is weather (a reset,
//     a cut-off body, one bad backend behind a balancer) and is retried after a short pause that
//     does not grow; once at least half fail, the URL is in trouble and the pauses grow
//     exponentially, so an overloaded or dead upstream is not hammered (Client.backoff).
const (
	latencySamples     = 64                     // recent successful attempts kept per URL
	minSamples         = 16                     // before that, no hedging and no adaptive timeout
	minHedgeDelay      = 2 * time.Millisecond   // below this, hedging would double every request
	timeoutOverP99     = 4                      // adaptive timeout = 4 × p99
	minAdaptiveTimeout = 250 * time.Millisecond // floor of the adaptive timeout
	coldHedgeDivisor   = 10                     // before any statistics: hedge after timeout/10,
	maxColdHedge       = 250 * time.Millisecond // but no later than this
	outcomeWindow      = 32                     // recent attempts (good or failed) kept per URL
	coolAfterFailures  = 2                      // consecutive failures before a URL cools down
	firstCoolDown      = 50 * time.Millisecond
	maxCoolDown        = 30 * time.Second
)

// endpoint is the client's record of one base URL: latencies per kind of request (answers to
// /block and to /status differ by orders of magnitude) and overall, and its failures.
type endpoint struct {
	mu        sync.Mutex
	all       ring
	byKind    map[string]*ring
	fails     int
	coolUntil time.Time
	outcomes  uint32 // the last outcomeWindow attempts, newest in bit 0: 1 failed, 0 answered
	nOutcomes int
}

// record shifts one outcome into the window; e.mu is held.
func (e *endpoint) record(failed bool) {
	e.outcomes <<= 1
	if failed {
		e.outcomes |= 1
	}
	e.nOutcomes = min(e.nOutcomes+1, outcomeWindow)
}

// mostlyAnswering reports whether fewer than half of the URL's recent attempts failed: a
// failure then is weather, not trouble.
func (e *endpoint) mostlyAnswering() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.nOutcomes > 0 && 2*bits.OnesCount32(e.outcomes) < e.nOutcomes
}

// ring holds the latest successful attempt durations.
type ring struct {
	lat     [latencySamples]time.Duration
	n, next int
}

func (r *ring) add(d time.Duration) {
	r.lat[r.next] = d
	r.next = (r.next + 1) % latencySamples
	r.n = min(r.n+1, latencySamples)
}

// requestKind is the request's Kind, or else its path without digits: one kind per endpoint
// whatever the height.
func requestKind(req Request) string {
	if req.Kind != "" {
		return req.Method + " " + req.Kind
	}
	path, _, _ := strings.Cut(req.Path, "?")
	return req.Method + " " + strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return -1
		}
		return r
	}, path)
}

func (e *endpoint) succeeded(kind string, d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all.add(d)
	if e.byKind == nil {
		e.byKind = map[string]*ring{}
	}
	r := e.byKind[kind]
	if r == nil {
		if len(e.byKind) >= 64 {
			r = &ring{} // unbounded kinds (an id in the path): not kept
		} else {
			r = &ring{}
			e.byKind[kind] = r
		}
	}
	r.add(d)
	e.fails, e.coolUntil = 0, time.Time{}
	e.record(false)
}

func (e *endpoint) failed(now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.record(true)
	e.fails++
	if e.fails >= coolAfterFailures {
		d := firstCoolDown << min(e.fails-coolAfterFailures, 20)
		e.coolUntil = now.Add(min(d, maxCoolDown))
	}
}

// quantiles returns the p50, p95 and p99 of the recent successful attempts of this kind (of
// all kinds while this one has too few); ok is false until enough have been seen.
func (e *endpoint) quantiles(kind string) (p50, p95, p99 time.Duration, ok bool) {
	e.mu.Lock()
	r := &e.all
	if k := e.byKind[kind]; k != nil && k.n >= minSamples {
		r = k
	}
	if r.n < minSamples {
		e.mu.Unlock()
		return 0, 0, 0, false
	}
	s := slices.Clone(r.lat[:r.n])
	e.mu.Unlock()
	slices.Sort(s)
	at := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return at(0.5), at(0.95), at(0.99), true
}

func (e *endpoint) cooling(now time.Time) (bool, time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return now.Before(e.coolUntil), e.coolUntil
}

// pick is the base to use next: the cursor's, unless it is cooling down and another is not
// (then the cursor moves there); when all cool down, the one ready soonest.
func (c *Client) pick() int {
	idx := int(c.cur.Load() % int64(len(c.bases)))
	if len(c.bases) == 1 {
		return idx
	}
	now := time.Now()
	best, bestAt := idx, time.Time{}
	for k := range len(c.bases) {
		i := (idx + k) % len(c.bases)
		cool, until := c.eps[i].cooling(now)
		if !cool {
			if i != idx {
				c.cur.CompareAndSwap(int64(idx), int64(i))
			}
			return i
		}
		if bestAt.IsZero() || until.Before(bestAt) {
			best, bestAt = i, until
		}
	}
	return best
}

// hedgeTarget is where a hedged copy of a request on base idx goes: the next base that is not
// cooling down, or idx itself.
func (c *Client) hedgeTarget(idx int) int {
	now := time.Now()
	for k := 1; k < len(c.bases); k++ {
		i := (idx + k) % len(c.bases)
		if cool, _ := c.eps[i].cooling(now); !cool {
			return i
		}
	}
	return idx
}

// attemptTimeout is the timeout of an attempt of req on base idx after timedOut timed-out
// attempts, and the hedge delay (0: do not hedge).
func (c *Client) attemptTimeout(idx int, req Request, timedOut int) (timeout, hedge time.Duration) {
	timeout = req.Timeout
	if timeout == 0 {
		timeout = c.timeout
	}
	if c.noAdapt {
		return timeout, 0
	}
	// Only reads addressed by their URL adapt: a POST's cost depends on its body (a JSON-RPC
	// batch of one height or of a hundred), which its path does not tell apart.
	idempotent := req.Method == http.MethodGet || req.Method == http.MethodHead || req.Idempotent
	if !idempotent {
		return timeout, 0
	}
	_, p95, p99, ok := c.eps[idx].quantiles(requestKind(req))
	if !ok {
		// Nothing learnt yet (a fresh client): a hung first request must not cost the
		// whole timeout either. The first requests go out together (a pipeline starting
		// fetches heights in parallel), and the writer waits for the first height, so a hang
		// among them is cut after at most maxColdHedge; a few extra requests at start are cheap.
		return timeout, min(timeout/coldHedgeDivisor, maxColdHedge)
	}
	if req.Timeout == 0 {
		adaptive := max(timeoutOverP99*p99, minAdaptiveTimeout) << min(timedOut, 20)
		timeout = min(timeout, adaptive)
	}
	return timeout, max(p95, minHedgeDelay)
}

// result is one attempt's outcome.
type result struct {
	resp  *Response
	err   error
	retry bool
}

// maxHedges is how many copies of a request may race the first one.
const maxHedges = 3

// The hedge budget bounds what hedging adds to the load, the rule of Dean and Barroso's "The
// Tail at Scale" (a few percent more requests for the tail): every hedgeable request earns
// hedgeShare of a hedge, a hedge the timer sends spends a whole one, and the saving is capped
// at hedgeBurst. When every answer is late because the upstream (or this machine) is
// saturated, a hedge at p95 would fire for most requests and send up to three copies of each,
// which only makes the saturation worse: measured on the busy capture's replay with a
// CPU-bound node, 350–400 hedged copies per 752 heights were cancelled mid-answer, and the
// catch-up took 4.7–5.1 s instead of 4.1 s without hedging. With the budget a lone hung request
// is still hedged at once from the saving, while a slow upstream sees at most ~5 % more
// requests. A replacement for a copy that failed is not hedging but a retry, and is not
// charged (it is bounded by maxHedges and the URL's health).
const (
	hedgeShare = 50        // milli-hedges earned per hedgeable request: 5 %
	hedgeBurst = 20 * 1000 // the saving's cap, in milli-hedges; a client starts with it
)

// hedgeBudget is a token bucket in milli-hedges, kept as what was spent beyond the saving so
// that its zero value is a full bucket.
type hedgeBudget struct {
	spent atomic.Int64 // hedgeBurst - balance, in [0, hedgeBurst]
}

// earn credits one hedgeable request.
func (b *hedgeBudget) earn() {
	for {
		s := b.spent.Load()
		if s == 0 || b.spent.CompareAndSwap(s, max(0, s-hedgeShare)) {
			return
		}
	}
}

// spend takes one hedge from the saving; false when it holds less than one.
func (b *hedgeBudget) spend() bool {
	for {
		s := b.spent.Load()
		if s+1000 > hedgeBurst {
			return false
		}
		if b.spent.CompareAndSwap(s, s+1000) {
			return true
		}
	}
}

// try runs one logical attempt of req on base idx: a single HTTP attempt, or, when the request
// may be hedged and outlives the hedge delay, up to 1+maxHedges racing ones (each started one
// hedge delay after the previous) where the first good answer, or else the last failure, wins.
// A copy that fails while another still runs is replaced at once (up to maxHedges times, and
// not when the upstream is in trouble: a 429, or most recent attempts failing), so a hung first
// attempt whose hedges met resets costs a few quick retries, not the hung attempt's timeout.
// The losers are cancelled.
func (c *Client) try(ctx context.Context, idx int, req Request, timedOut int) result {
	timeout, hedge := c.attemptTimeout(idx, req, timedOut)
	if hedge <= 0 || hedge >= timeout {
		return c.once(ctx, idx, req, timeout)
	}
	c.budget.earn()
	hctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := make(chan result, 1+maxHedges)
	go func() { out <- c.once(hctx, idx, req, timeout) }()
	running, sent, replaced := 1, 0, 0
	t := time.NewTimer(hedge)
	defer t.Stop()
	launch := func() {
		running++
		c.hedges.Add(1)
		target := c.hedgeTarget(idx)
		go func() { out <- c.once(hctx, target, req, timeout) }()
		t.Reset(hedge)
	}
	var last result
	for {
		select {
		case r := <-out:
			running--
			if r.err == nil || !r.retry {
				return r
			}
			last = r
			if running == 0 {
				return last
			}
			if replaced < maxHedges && !tooMany(r) && c.eps[c.hedgeTarget(idx)].mostlyAnswering() {
				replaced++
				launch()
			}
		case <-t.C:
			if sent < maxHedges && c.budget.spend() {
				sent++
				launch()
			}
		case <-ctx.Done():
			for running > 0 {
				last = <-out
				running--
			}
			return last
		}
	}
}

// tooMany reports a 429: the upstream asked for fewer requests.
func tooMany(r result) bool {
	return r.resp != nil && r.resp.Status == http.StatusTooManyRequests
}
