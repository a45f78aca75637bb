package track

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"

	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/sqldb"
)

// fault is what a failed scan pass or evaluation round means for the loop that ran it.
type fault int

const (
	faultNone fault = iota
	// faultRetry: not the database (a lost lease, one transfer's probe): tried again at the
	// usual cadence.
	faultRetry
	// faultUpstream: a chain's RPC did not answer (an HTTP client's error, whatever network
	// error it wraps): the loop backs off up to maxUpstreamBackoff; the chain's reach.Watch
	// says once that it went away and once that it is back.
	faultUpstream
	// faultTransient: the database is weather (connection lost, admin shutdown, serialization
	// failure, SQLITE_BUSY; sqldb.IsTransient, shared with the indexer): tried again with
	// backoff on a fresh connection, while the API keeps serving.
	faultTransient
	// faultPermanent: a database error no retry fixes (schema mismatch, disk full, constraint):
	// Run stops and returns it.
	faultPermanent
)

func (f fault) String() string {
	return [...]string{"none", "retry", "upstream", "transient", "permanent"}[f]
}

// classify reads err, which may join several (a round reports every transfer's error): any
// permanent database error in it makes it permanent, else any transient one transient.
func classify(err error) fault {
	if err == nil {
		return faultNone
	}
	worst := faultRetry
	var walk func(error)
	walk = func(err error) {
		// A type switch rather than errors.As: the walk unwraps one level per call itself, and
		// must visit every branch of a joined error, which errors.As stops at the first of.
		switch e := err.(type) { //nolint:errorlint // see above
		case *pgconn.PgError, *sqlite.Error:
			if sqldb.IsTransient(e) {
				worst = max(worst, faultTransient)
			} else {
				worst = faultPermanent
			}
			return
		case interface{ Unwrap() []error }:
			for _, x := range e.Unwrap() {
				walk(x)
			}
			return
		}
		// A chain's RPC, never the database, even with a network error inside: looked for
		// before IsTransient, which reads network errors through any wrapping.
		if fromRPC(err) {
			worst = max(worst, faultUpstream)
			return
		}
		// Lost connections (net errors, EOF, pgconn.ConnectError …) are the database's
		// weather too; IsTransient reads them through the wrapping.
		if sqldb.IsTransient(err) {
			worst = max(worst, faultTransient)
		}
		if x := errors.Unwrap(err); x != nil {
			walk(x)
		}
	}
	walk(err)
	return worst
}

// fromRPC reports whether err (one chain of wrapping, no join) came from an HTTP client: a
// chain's RPC that did not answer or answered with an error status.
func fromRPC(err error) bool {
	var ue *httpx.UnreachableError
	var se *httpx.StatusError
	var ne *url.Error
	return errors.As(err, &ue) || errors.As(err, &se) || errors.As(err, &ne)
}

// maxBackoff caps the wait between attempts against a failing database.
const maxBackoff = 10 * time.Second

// maxUpstreamBackoff caps the wait between scans of a chain whose RPC does not answer: a
// chain down for days is asked once a minute.
const maxUpstreamBackoff = time.Minute

// backoff is the wait before attempt n+1 after n consecutive transient failures: Poll doubled
// per failure up to maxBackoff, ±10 % jitter so replicas do not retry in step.
func (t *Tracker) backoff(n int) time.Duration { return t.backoffTo(n, maxBackoff) }

func (t *Tracker) backoffTo(n int, most time.Duration) time.Duration {
	d := t.cfg.Poll
	for i := 0; i < n && d < most; i++ {
		d *= 2
	}
	d = min(d, most)
	return d + time.Duration(float64(d)*0.1*(2*rand.Float64()-1))
}

// failures follows one loop's consecutive failures.
type failures struct {
	t     *Tracker
	what  string
	fatal func(error)
	n     int // consecutive transient failures
	up    int // consecutive upstream failures
	// upstream: the loop reads one chain (a scan loop), so a chain that does not answer backs
	// it off; a round over many transfers goes on at its cadence (one chain's RPC down must
	// not hold the others' evaluations).
	upstream bool
}

// next reports how long the loop waits before its next attempt after err (0: its usual
// cadence); a permanent database error is logged at error level and handed to fatal, which
// stops Run.
func (f *failures) next(err error, attrs ...any) (wait time.Duration, stop bool) {
	switch classify(err) {
	case faultNone:
		if f.n > 0 {
			f.t.log.Info(f.what+": database reachable again", append(attrs, "after_failures", f.n)...)
		}
		f.n, f.up = 0, 0
		return 0, false
	case faultUpstream:
		if !f.upstream {
			f.t.log.Debug(f.what, append(attrs, "err", err)...)
			return 0, false
		}
		// Logged by the chain's reach.Watch (once away, once back, a summary between): here
		// only at debug, with the chain named.
		wait = f.t.backoffTo(f.up, maxUpstreamBackoff)
		f.up++
		f.t.log.Debug(f.what+": chain RPC did not answer; retrying", append(attrs, "err", err, "attempt", f.up, "backoff", wait)...)
		return wait, false
	case faultTransient:
		if sqldb.SessionLost(err) {
			// The server ended an established session (a failover, a restart, sessions
			// terminated again and again): a fresh one is tried at the loop's cadence, not
			// after a backoff. Backing off here was a stall: each wait let the next
			// termination end the pool's sessions, the next attempt met a dead one and
			// doubled the wait, up to 10 s, so no pass completed between two faults. The
			// first of a run is logged at warn, the rest at debug (summed when it ends).
			f.n++
			level := slog.LevelDebug
			if f.n == 1 {
				level = slog.LevelWarn
			}
			f.t.log.Log(context.Background(), level, f.what+": database session lost; retrying on a fresh one", append(attrs, "err", err, "attempt", f.n)...)
			return f.t.cfg.Poll, false
		}
		wait = f.t.backoff(f.n)
		f.n++
		f.t.log.Warn(f.what+": transient database error; retrying", append(attrs, "err", err, "attempt", f.n, "backoff", wait)...)
		return wait, false
	case faultPermanent:
		f.t.log.Error(f.what+": permanent database error; the tracker stops", append(attrs, "err", err)...)
		f.fatal(err)
		return 0, true
	default:
		f.t.log.Debug(f.what, append(attrs, "err", err)...)
		return 0, false
	}
}

// errStoreFailed wraps the permanent database error Run stops on.
var errStoreFailed = errors.New("track store failed")

// StoreUnavailable reports whether err is the tracker store's transient failure (the API
// answers 503: try again), not a fault of the request.
func StoreUnavailable(err error) bool { return classify(err) == faultTransient }

// ChainUnavailable reports whether err is a chain's RPC that did not answer (a /submit's
// broadcast to a node that is down): the API answers 503, the request may be sent again.
func ChainUnavailable(err error) bool { return classify(err) == faultUpstream }
