package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/apierr"
)

// Write-through: an API that knows which answers its clients will ask for next (the indexer's
// newest block, its head pages) computes them before anyone asks, so the first request is a
// cache hit. The answers are computed exactly as a request's: the same route (the patterns are
// registered on a second ServeMux, so routing and path values are net/http's own), the same
// handler, the same render, the same version rule; only nothing is written or counted as a
// request.

// WarmResult counts what one Warm did with its targets.
type WarmResult struct {
	Kept  int // computed and put into the cache
	Fresh int // the cache already held a current answer: nothing computed
	// Skipped are targets no cacheable route answers, or whose answer is not kept (an error,
	// such as a 404 for a block not indexed yet, or an unpinned answer without a version).
	Skipped int
}

// warmMetrics count warmed targets by outcome (kept, fresh, skipped, failed).
type warmMetrics struct{ kept, fresh, skipped, failed prometheus.Counter }

func newWarmMetrics(reg prometheus.Registerer, ns string) *warmMetrics {
	v := register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: ns + "_cache_warms_total",
		Help: "Answers computed ahead of requests (write-through) by outcome: kept, fresh (already cached), skipped (no cacheable answer), failed.",
	}, []string{"result"}))
	return &warmMetrics{kept: v.WithLabelValues("kept"), fresh: v.WithLabelValues("fresh"),
		skipped: v.WithLabelValues("skipped"), failed: v.WithLabelValues("failed")}
}

// warmWriter carries one warm step's outcome out of the warm ServeMux; what the ServeMux itself
// would write (a 404, a redirect) is dropped and leaves matched false.
type warmWriter struct {
	h       http.Header
	matched bool
	kept    bool
	fresh   bool
	err     error
}

func (w *warmWriter) Header() http.Header {
	if w.h == nil {
		w.h = http.Header{}
	}
	return w.h
}
func (w *warmWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *warmWriter) WriteHeader(int)             {}

// registerWarm adds rt to the warm ServeMux when its answers are kept by version.
func (s *server) registerWarm(rt Route) {
	if !rt.Cache || rt.Stream != nil || s.cache == nil || s.opts.Version == nil {
		return
	}
	if s.warmMux == nil {
		s.warmMux = http.NewServeMux()
	}
	cr := &cachedRoute{s: s, rt: rt, rm: s.m.forRoute(rt.Pattern)}
	s.warmMux.Handle(rt.Pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ww := w.(*warmWriter)
		ww.matched = true
		ww.kept, ww.fresh, ww.err = s.warmOne(r, cr)
	}))
}

// Warm computes h's answers to GET requests for targets (each a path with an optional query,
// as a client sends it) and keeps them in h's response cache, as if a client had asked each
// one now. h must come from New; without a cache or a Version it does nothing. A target the
// cache already holds a current answer for is not computed again. The error is the first
// handler failure other than a client error (a 4xx is an answer that is not kept, not a
// failure); the other targets are still warmed.
func Warm(ctx context.Context, h http.Handler, targets []string) (WarmResult, error) {
	var res WarmResult
	s, ok := h.(*server)
	if !ok {
		return res, fmt.Errorf("httpapi: Warm needs a handler from httpapi.New, not %T", h)
	}
	if s.warmMux == nil {
		res.Skipped = len(targets)
		return res, nil
	}
	var first error
	for _, t := range targets {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		r, err := http.NewRequestWithContext(ctx, http.MethodGet, t, nil)
		if err != nil {
			s.warm.skipped.Inc()
			res.Skipped++
			continue
		}
		var w warmWriter
		s.warmMux.ServeHTTP(&w, r)
		switch {
		case w.kept:
			s.warm.kept.Inc()
			res.Kept++
		case w.fresh:
			s.warm.fresh.Inc()
			res.Fresh++
		case w.err != nil:
			s.warm.failed.Inc()
			res.Skipped++
			if first == nil {
				first = fmt.Errorf("warm %s: %w", t, w.err)
			}
		default:
			s.warm.skipped.Inc()
			res.Skipped++
		}
	}
	return res, first
}

// warmOne is serve's miss path without the response: the version first (an answer tagged with
// it is at least that fresh), then the route's handler and render, then the cache.
func (s *server) warmOne(r *http.Request, cr *cachedRoute) (kept, fresh bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.m.panics.Inc()
			kept, fresh, err = false, false, fmt.Errorf("panic in %s: %v", cr.rt.Pattern, p)
		}
	}()
	ctx := r.Context()
	if s.opts.RequestTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.opts.RequestTimeout)
		defer cancel()
		r = r.WithContext(ctx)
	}
	var kb [maxStackKey]byte
	key := appendKey(kb[:0], r)
	gen := s.cache.generation() // before the handler reads anything
	version, err := s.opts.Version(ctx)
	if err != nil {
		return false, false, err
	}
	if a, hit := s.cache.get(key); hit && (a.pinned || a.version >= version) {
		return false, true, nil
	}
	v, err := cr.rt.Handler(r)
	if err != nil {
		if s.opts.MapError != nil {
			err = s.opts.MapError(err)
		}
		if status := apierr.From(err).Code.HTTPStatus(); status >= 400 && status < 500 {
			return false, false, nil // an answer, just not one the cache keeps
		}
		return false, false, err
	}
	a, err := render(v)
	if err != nil {
		return false, false, fmt.Errorf("encode %s: %w", cr.rt.Pattern, err)
	}
	if a.pooled {
		// The cache keeps its own copy, exactly sized, as serve's does.
		body := a.body
		a.body, a.pooled = bytes.Clone(body), false
		releaseBody(body)
	}
	a.version, a.route = version, cr
	return s.cache.offer(string(key), a, gen), false, nil
}

// offer puts a warmed answer unless the cache holds one at least as good (pinned, or of the
// same or a newer version, computed by a request meanwhile): warming does not replace a fresher
// answer with an older one. (A request putting a newer one between the check and the put is
// overwritten: that answer is then a miss, recomputed, never a stale hit, since the version
// rule still holds.) It reports whether a was kept.
func (c *Cache) offer(key string, a *answer, gen uint64) bool {
	c.mu.Lock()
	if el, ok := c.items[key]; ok {
		if old := el.Value.(*cacheEntry).a; old.pinned || (!a.pinned && old.version >= a.version) {
			c.mu.Unlock()
			return false
		}
	}
	c.mu.Unlock()
	if entrySize(key, a) > c.max/8 {
		return false
	}
	return c.put(key, a, gen)
}
