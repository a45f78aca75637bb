// Package reach follows whether a chain's upstream endpoints answer and says so in the log
// only when that changes: one warning when the chain goes away, one line when it is back, and
// while it stays away a summary at most every Summary interval. A node that is down for a
// week costs a few lines an hour, not one per retry, and an operator still learns at once.
//
// A Watch is told the outcome of every upstream attempt (httpx.WithWatch does it for a
// client); it never sends anything itself. Failures shorter than Grace with no success in
// between are weather, not an outage: they are not logged above debug.
package reach

import (
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of Options.
const (
	DefaultGrace   = 10 * time.Second
	DefaultSummary = 5 * time.Minute
)

// Options tune a Watch; zero values take the defaults.
type Options struct {
	// Now is the clock (tests pin it); default time.Now.
	Now func() time.Time
	// Grace is how long an endpoint may fail without one success before it counts as
	// unreachable. Default 10 s.
	Grace time.Duration
	// Summary is the least time between two lines about a chain that stays away. Default 5 min.
	Summary time.Duration
}

// Watch is one chain's view of its upstream endpoints (RPC, REST, JSON-RPC URLs), safe for
// concurrent use. The zero value is not usable; call New.
type Watch struct {
	log     *slog.Logger
	now     func() time.Time
	grace   time.Duration
	summary time.Duration

	// failing counts endpoints with a failure since their last success: OK, called on every
	// successful attempt, returns without locking while it is zero.
	failing atomic.Int32

	mu        sync.Mutex
	eps       map[string]*endpoint
	away      bool      // some endpoint is unreachable and that was logged
	awaySince time.Time // when the chain went away (the first unreachable endpoint's first failure)
	lastLine  time.Time // last line about this outage: its start or a summary
	failed    int       // failed attempts since lastLine
	lastErr   string
}

type endpoint struct {
	firstFail time.Time // first failure since the last success; zero: answering
	down      bool      // unreachable: failing for Grace or more
	failures  int       // since the last success
}

// New returns a Watch logging on log (nil: nowhere).
func New(log *slog.Logger, o Options) *Watch {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.Summary <= 0 {
		o.Summary = DefaultSummary
	}
	return &Watch{log: log, now: o.Now, grace: o.Grace, summary: o.Summary, eps: map[string]*endpoint{}}
}

// Failed records a failed attempt at url (a redacted base URL) with err.
func (w *Watch) Failed(url string, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.now()
	e := w.eps[url]
	if e == nil {
		e = &endpoint{}
		w.eps[url] = e
	}
	if e.firstFail.IsZero() {
		e.firstFail = now
		w.failing.Add(1)
	}
	e.failures++
	w.failed++
	if err != nil {
		w.lastErr = err.Error()
	}
	if !e.down && now.Sub(e.firstFail) >= w.grace {
		e.down = true
		if !w.away {
			w.away, w.awaySince, w.lastLine, w.failed = true, e.firstFail, now, 0
			w.log.Warn("upstream unreachable", "url", url, "for", now.Sub(e.firstFail).Round(time.Second).String(),
				"failed_attempts", e.failures, "err", w.lastErr)
			return
		}
	}
	if w.away && now.Sub(w.lastLine) >= w.summary {
		w.log.Warn("upstream still unreachable", "urls", w.downLocked(), "for", now.Sub(w.awaySince).Round(time.Second).String(),
			"failed_attempts", w.failed, "over", now.Sub(w.lastLine).Round(time.Second).String(), "err", w.lastErr)
		w.lastLine, w.failed = now, 0
		return
	}
	w.log.Debug("upstream attempt failed", "url", url, "err", err)
}

// OK records a successful attempt at url (an answer, even a definitive error status).
func (w *Watch) OK(url string) {
	if w.failing.Load() == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	e := w.eps[url]
	if e == nil || e.firstFail.IsZero() {
		return
	}
	wasDown := e.down
	*e = endpoint{}
	w.failing.Add(-1)
	if !wasDown || !w.away {
		return
	}
	if still := w.downLocked(); len(still) > 0 {
		w.log.Debug("upstream reachable again; others still are not", "url", url, "unreachable", still)
		return
	}
	now := w.now()
	w.log.Info("upstream reachable again", "url", url, "after", now.Sub(w.awaySince).Round(time.Second).String(),
		"failed_attempts", w.failed)
	w.away, w.awaySince, w.lastLine, w.failed, w.lastErr = false, time.Time{}, time.Time{}, 0, ""
}

func (w *Watch) downLocked() []string {
	var out []string
	for u, e := range w.eps {
		if e.down {
			out = append(out, u)
		}
	}
	sort.Strings(out)
	return out
}

// State is a Watch's word on its chain now.
type State struct {
	// Unreachable lists the endpoints failing for Grace or more, sorted; empty: all answer
	// (or none was tried yet).
	Unreachable []string
	// Since is when the first of them started failing; zero when none is unreachable.
	Since time.Time
	// LastError is the last failed attempt's error while some endpoint is unreachable.
	LastError string
}

// State reports which endpoints are unreachable now. An endpoint past Grace is counted
// even if no attempt since has said so (callers poll readiness between attempts).
func (w *Watch) State() State {
	if w.failing.Load() == 0 {
		return State{}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.now()
	var s State
	for u, e := range w.eps {
		if e.down || (!e.firstFail.IsZero() && now.Sub(e.firstFail) >= w.grace) {
			s.Unreachable = append(s.Unreachable, u)
			if s.Since.IsZero() || e.firstFail.Before(s.Since) {
				s.Since = e.firstFail
			}
		}
	}
	sort.Strings(s.Unreachable)
	if len(s.Unreachable) > 0 {
		s.LastError = w.lastErr
	}
	return s
}
