package ingest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/chain/httpx"
)

// upstream records every HTTP attempt of a ClientSource: the Prometheus series (per upstream
// kind and per base URL, redacted by httpx) and the last success and failure, which readiness
// reports.
type upstream struct {
	attempts *prometheus.CounterVec
	failures *prometheus.CounterVec
	seconds  *prometheus.HistogramVec

	mu       sync.Mutex
	okAt     time.Time
	failAt   time.Time
	lastFail error
}

// newUpstream registers the upstream series on reg; a nil reg keeps only the last outcomes.
func newUpstream(reg prometheus.Registerer) (*upstream, error) {
	u := &upstream{}
	if reg == nil {
		return u, nil
	}
	u.attempts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "rollgate_ingest_upstream_attempts_total",
		Help: "HTTP attempts against the chain, by upstream (rpc, rest), base URL and result (ok, retry, error).",
	}, []string{"upstream", "url", "result"})
	u.failures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "rollgate_ingest_upstream_failures_total",
		Help: "Failed HTTP attempts against the chain, by upstream, base URL and kind (timeout, connection, status, invalid_body, other).",
	}, []string{"upstream", "url", "kind"})
	u.seconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "rollgate_ingest_upstream_attempt_seconds",
		Help:    "Duration of HTTP attempts against the chain, by upstream and base URL.",
		Buckets: prometheus.ExponentialBuckets(0.002, 2, 14),
	}, []string{"upstream", "url"})
	for _, c := range []prometheus.Collector{u.attempts, u.failures, u.seconds} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register upstream metrics: %w", err)
		}
	}
	return u, nil
}

// hooks are the httpx hooks of one upstream kind ("rpc", "rest").
func (u *upstream) hooks(kind string) httpx.Option {
	return httpx.WithHooks(httpx.Hooks{OnAttempt: func(a httpx.Attempt) { u.record(kind, a) }})
}

func (u *upstream) record(kind string, a httpx.Attempt) {
	// A definitive answer (a 4xx, CometBFT's HTTP 500 for a height not produced yet) is the
	// upstream working; only what httpx retries, or could not get an answer for, failed.
	failed := a.Err != nil && (a.Status == 0 || a.Retry)
	if errors.Is(a.Err, context.Canceled) {
		failed = false // the caller gave up (shutdown, a sibling fetch failed)
	}
	u.mu.Lock()
	if failed {
		u.failAt, u.lastFail = time.Now(), a.Err
	} else if a.Err == nil || a.Status != 0 {
		u.okAt = time.Now()
	}
	u.mu.Unlock()
	if u.attempts == nil {
		return
	}
	result := "ok"
	switch {
	case a.Retry:
		result = "retry"
	case a.Err != nil:
		result = "error"
	}
	u.attempts.WithLabelValues(kind, a.BaseURL, result).Inc()
	u.seconds.WithLabelValues(kind, a.BaseURL).Observe(a.Duration.Seconds())
	if failed {
		u.failures.WithLabelValues(kind, a.BaseURL, failureKind(a)).Inc()
	}
}

// failureKind classifies a failed attempt for the failures series.
func failureKind(a httpx.Attempt) string {
	var ne net.Error
	switch {
	case errors.Is(a.Err, context.DeadlineExceeded) || (errors.As(a.Err, &ne) && ne.Timeout()):
		return "timeout"
	case errors.Is(a.Err, httpx.ErrInvalidBody):
		return "invalid_body"
	case a.Status != 0:
		return "status"
	case errors.As(a.Err, &ne):
		return "connection"
	}
	return "other"
}

// state is the last successful attempt and the last failure (zero times when none yet).
func (u *upstream) state() (okAt, failAt time.Time, lastFail error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.okAt, u.failAt, u.lastFail
}
