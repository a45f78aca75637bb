// Package httpx is the transport shared by rollgate's chain clients (CometBFT RPC, Cosmos REST,
// Ethereum JSON-RPC): one client over one or more base URLs with per-attempt timeouts, retries
// with exponential backoff and jitter, rotation to the next URL after a failure, an optional
// concurrency limit and typed errors that separate "the upstream answered X" from "the upstream
// could not be reached".
//
// A base URL may carry credentials (user:password@, ?apikey=...): they are sent upstream, and
// every URL the package puts in an error, a log line, a metrics hook or Endpoints is redacted.
package httpx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rollgate/rollgate/internal/jsonx"
	"github.com/rollgate/rollgate/internal/redact"
)

// Defaults used when no option overrides them.
const (
	DefaultTimeout     = 10 * time.Second
	DefaultMaxAttempts = 5
	DefaultMinBackoff  = 200 * time.Millisecond
	DefaultMaxBackoff  = 10 * time.Second
	// MaxBodyBytes bounds how much of a response body is read; a busy block is a few MB.
	MaxBodyBytes = 256 << 20
)

// Limiter bounds the number of requests in flight. One Limiter may be shared by several
// clients (e.g. the REST and JSON-RPC clients of one chain) so the upstream sees one budget.
type Limiter struct {
	slots  chan struct{}
	parent *Limiter // also held for every request, when set (Sub)
}

// NewLimiter returns a limiter allowing n concurrent requests; n <= 0 means no limit (nil).
func NewLimiter(n int) *Limiter {
	if n <= 0 {
		return nil
	}
	return &Limiter{slots: make(chan struct{}, n)}
}

// Sub returns a limiter of n slots whose every request also takes one of l's: several
// upstreams (the chains of one multi-chain indexer) share l as one budget, while n caps
// what any one of them holds of it, so an upstream that hangs keeps at most n of l's slots
// and the others go on. l's waiters are served in arrival order, so upstreams that are all
// busy share l in turn. A nil l gives NewLimiter(n).
func (l *Limiter) Sub(n int) *Limiter {
	s := NewLimiter(n)
	if l == nil {
		return s
	}
	if s == nil {
		return l
	}
	s.parent = l
	return s
}

func (l *Limiter) acquire(ctx context.Context) error {
	if l == nil {
		return nil
	}
	select {
	case l.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := l.parent.acquire(ctx); err != nil {
		<-l.slots
		return err
	}
	return nil
}

func (l *Limiter) release() {
	if l != nil {
		l.parent.release()
		<-l.slots
	}
}

// Attempt describes one HTTP attempt, for metrics hooks.
type Attempt struct {
	BaseURL  string
	Method   string
	Path     string
	Status   int // 0 when no answer was received
	Err      error
	Duration time.Duration
	Retry    bool // whether another attempt follows
}

// Hooks are optional callbacks; they must be cheap and safe for concurrent use.
type Hooks struct {
	OnAttempt func(Attempt)
}

// Client sends requests to one logical upstream served by one or more base URLs.
type Client struct {
	bases       []*url.URL
	names       []string    // bases, redacted: what errors, logs and hooks show
	eps         []*endpoint // what was learnt about each base (hedge.go)
	cur         atomic.Int64
	hc          *http.Client
	timeout     time.Duration
	maxAttempts int
	minBackoff  time.Duration
	maxBackoff  time.Duration
	log         *slog.Logger
	limiter     *Limiter
	hooks       Hooks
	header      http.Header
	warn        failureLog
	watch       Watcher       // nil: failures are logged by warn
	outage      time.Duration // the largest pause while a URL mostly fails (WithOutageBackoff)
	noAdapt     bool          // fixed timeouts, no hedging
	hedges      atomic.Int64  // hedged attempts sent
	budget      hedgeBudget   // what the timer may still hedge (hedge.go)
}

// Option configures a Client.
type Option func(*Client)

// WithTimeout sets the per-attempt timeout (connect, send, and reading the whole body).
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithMaxAttempts bounds the attempts per call; 0 retries until the context ends.
func WithMaxAttempts(n int) Option { return func(c *Client) { c.maxAttempts = n } }

// WithBackoff sets the first and the largest delay between attempts.
func WithBackoff(min, max time.Duration) Option {
	return func(c *Client) { c.minBackoff, c.maxBackoff = min, max }
}

// WithLogger logs retries and rotations at debug/warn level.
func WithLogger(l *slog.Logger) Option { return func(c *Client) { c.log = l } }

// Watcher is told the outcome of every attempt (reach.Watch): Failed for one that may be
// retried (no answer, a 5xx, 429), OK for an answer. A client with a Watcher leaves logging
// failures to it: its own per-attempt warnings go to debug.
type Watcher interface {
	Failed(url string, err error)
	OK(url string)
}

// WithWatch reports every attempt's outcome to w, keyed by the redacted base URL.
func WithWatch(w Watcher) Option { return func(c *Client) { c.watch = w } }

// WithOutageBackoff raises the largest pause between attempts to d while the URL fails at
// least half of its recent attempts (down, not weather): a follower that retries without
// limit then asks a dead node once a minute rather than every few seconds. A URL that
// mostly answers keeps the WithBackoff bound.
func WithOutageBackoff(d time.Duration) Option { return func(c *Client) { c.outage = d } }

// WithConcurrency limits the requests in flight through this client to n.
func WithConcurrency(n int) Option { return func(c *Client) { c.limiter = NewLimiter(n) } }

// WithLimiter shares a limiter with other clients.
func WithLimiter(l *Limiter) Option { return func(c *Client) { c.limiter = l } }

// WithHooks installs metrics hooks.
func WithHooks(h Hooks) Option { return func(c *Client) { c.hooks = h } }

// WithHTTPClient replaces the underlying *http.Client (its Timeout should be 0: the per-attempt
// timeout is applied through the request context).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// WithoutAdaptation turns off hedging and adaptive timeouts: every attempt gets the configured
// timeout and runs alone (tests that time attempts exactly).
func WithoutAdaptation() Option { return func(c *Client) { c.noAdapt = true } }

// WithHeader adds a header to every request (e.g. an API key).
func WithHeader(key, value string) Option {
	return func(c *Client) { c.header.Add(key, value) }
}

// New returns a client over a comma-separated list of base URLs.
func New(endpoints string, opts ...Option) (*Client, error) {
	return NewList(SplitEndpoints(endpoints), opts...)
}

// SplitEndpoints splits a comma-separated endpoint list, trimming blanks.
func SplitEndpoints(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// sharedTransport keeps as many idle connections per host as an ingest keeps requests in
// flight: http.DefaultTransport keeps 2, so with 8 heights fetched at once (and the hedges on
// top) most answers closed their connection and the next request dialled a new one, a TCP
// handshake on both sides for every few calls during catch-up.
var sharedTransport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	return t
}()

// NewList returns a client over the given base URLs, tried in order.
func NewList(endpoints []string, opts ...Option) (*Client, error) {
	if len(endpoints) == 0 {
		return nil, errors.New("httpx: no endpoint")
	}
	c := &Client{
		hc:          &http.Client{Transport: sharedTransport},
		timeout:     DefaultTimeout,
		maxAttempts: DefaultMaxAttempts,
		minBackoff:  DefaultMinBackoff,
		maxBackoff:  DefaultMaxBackoff,
		header:      http.Header{},
	}
	for _, e := range endpoints {
		u, err := url.Parse(strings.TrimRight(e, "/"))
		if err != nil {
			// url.Parse quotes the whole input, credentials included.
			return nil, fmt.Errorf("httpx: endpoint %q: %s", redact.URL(e), redact.Text(err.Error()))
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return nil, fmt.Errorf("httpx: endpoint %q: scheme must be http or https", redact.URL(e))
		}
		c.bases = append(c.bases, u)
		c.names = append(c.names, redact.URL(u.String()))
		c.eps = append(c.eps, &endpoint{})
	}
	for _, o := range opts {
		o(c)
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.minBackoff <= 0 {
		c.minBackoff = time.Millisecond
	}
	if c.maxBackoff < c.minBackoff {
		c.maxBackoff = c.minBackoff
	}
	return c, nil
}

// Hedges is how many hedged attempts the client has sent.
func (c *Client) Hedges() int64 { return c.hedges.Load() }

// Endpoints returns the base URLs, in rotation order, redacted.
func (c *Client) Endpoints() []string { return append([]string(nil), c.names...) }

// Request is one logical call; it may be sent several times.
type Request struct {
	Method string // GET when empty
	// Path is appended to the base URL; it may carry an escaped query ("/block?height=5").
	Path   string
	Query  url.Values
	Header http.Header
	Body   []byte
	// Timeout overrides the client's per-attempt timeout (e.g. long traces).
	Timeout time.Duration
	// Idempotent marks a POST that only reads (a query carried in a body): like a GET it may be
	// hedged and gets an adaptive timeout. Never set it on anything that changes state.
	Idempotent bool
	// Kind groups requests of like cost for the latency statistics behind hedging and adaptive
	// timeouts (default: the path without digits). A POST whose path says nothing of its cost
	// (JSON-RPC: one URL for every method) names it here.
	Kind string
	// ExpectJSON makes a 2xx answer whose body is not valid JSON count as a failed attempt
	// (truncated bodies from dying connections are retried rather than handed to decoders).
	ExpectJSON bool
	// Final, when set, decides that a non-2xx answer is the upstream's definitive word and must
	// not be retried even though its status (5xx, 429) would normally be retried. CometBFT, for
	// instance, answers "height in the future" with HTTP 500.
	Final func(status int, body []byte) bool
}

// Response is a received answer.
type Response struct {
	URL         string
	Status      int
	Header      http.Header
	ContentType string
	Body        []byte
}

// StatusError means the upstream answered with a non-2xx status: "the upstream said X".
type StatusError struct {
	URL         string
	Method      string
	Status      int
	ContentType string
	Body        []byte
}

func (e *StatusError) Error() string {
	body := e.Body
	if len(body) > 512 {
		body = body[:512]
	}
	return fmt.Sprintf("%s %s: HTTP %d: %s", e.Method, e.URL, e.Status, bytes.TrimSpace(body))
}

// UnreachableError means no usable answer was obtained within the allowed attempts: network
// errors, timeouts, resets or invalid bodies. Last is the last attempt's error.
type UnreachableError struct {
	Attempts int
	Last     error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("upstream unreachable after %d attempt(s): %v", e.Attempts, e.Last)
}

func (e *UnreachableError) Unwrap() error { return e.Last }

// ErrInvalidBody marks a 2xx answer whose body was not valid JSON.
var ErrInvalidBody = errors.New("invalid JSON body")

// IsUnreachable reports whether err means the upstream could not be reached.
func IsUnreachable(err error) bool {
	var u *UnreachableError
	return errors.As(err, &u)
}

// AsStatus returns the StatusError inside err, if any.
func AsStatus(err error) (*StatusError, bool) {
	var s *StatusError
	ok := errors.As(err, &s)
	return s, ok
}

// Do sends the request, retrying and rotating as configured. A non-2xx final answer returns
// both the Response and a *StatusError.
func (c *Client) Do(ctx context.Context, req Request) (*Response, error) {
	if req.Method == "" {
		req.Method = http.MethodGet
	}
	var last error
	var lastStatus *StatusError
	timedOut := 0
	for attempt := 1; ; attempt++ {
		idx := c.pick()
		r := c.try(ctx, idx, req, timedOut)
		resp, err, retry := r.resp, r.err, r.retry
		if err == nil {
			return resp, nil
		}
		last = err
		if errors.Is(err, context.DeadlineExceeded) {
			timedOut++ // the next attempt waits longer: the answer may just be slow
		}
		lastStatus = nil
		var se *StatusError
		if errors.As(err, &se) {
			lastStatus = se
		}
		if !retry {
			return resp, err
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w (last attempt: %s)", ctx.Err(), last.Error())
		}
		// Only failures worth a retry are the upstream's fault; a definitive answer is not.
		if c.watch == nil {
			c.warn.failed(c.log, c.names[idx], req.Path, attempt, err)
		}
		if len(c.bases) > 1 {
			// Move the shared cursor on only if nobody else has already done so.
			if c.cur.CompareAndSwap(int64(idx), int64((idx+1)%len(c.bases))) {
				level := slog.LevelWarn
				if c.watch != nil {
					level = slog.LevelDebug // the watch says which URLs are away, once
				}
				c.log.Log(ctx, level, "httpx: rotating endpoint", "from", c.names[idx],
					"to", c.names[(idx+1)%len(c.bases)], "err", err)
			}
		}
		if c.maxAttempts > 0 && attempt >= c.maxAttempts {
			if lastStatus != nil {
				return nil, lastStatus
			}
			return nil, &UnreachableError{Attempts: attempt, Last: last}
		}
		status := 0
		if lastStatus != nil {
			status = lastStatus.Status
		}
		delay := c.backoff(attempt, idx, status)
		c.log.Debug("httpx: retrying", "path", req.Path, "attempt", attempt, "delay", delay, "err", err)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%w (last attempt: %s)", ctx.Err(), last.Error())
		case <-t.C:
		}
	}
}

// backoff is the pause after the attempt-th failed attempt of a request, which went to base
// idx and got status (0: no answer). It doubles from minBackoff up to maxBackoff, with ±20%
// jitter so clients that failed together do not retry together.
//
// One failed attempt among many good ones (a reset, a cut-off body, a 500 from one backend
// behind a balancer) is best retried at once: the first retry waits only a tenth of
// minBackoff, and so does every later one while most of the URL's recent attempts succeed —
// against an upstream failing a quarter of its calls at random, a growing pause made a request
// that failed three times in a row wait 0.6 s more, and the ordered writer with it. Once at
// least half of the URL's recent attempts fail the pause grows: the upstream is in trouble, not
// in weather. A 429 always backs off: the upstream asked for fewer requests.
func (c *Client) backoff(attempt, idx, status int) time.Duration {
	d, most := c.minBackoff, c.maxBackoff
	answering := c.eps[idx].mostlyAnswering()
	if !c.noAdapt && (attempt == 1 || (status != http.StatusTooManyRequests && answering)) {
		d /= 10
		attempt = 1
	}
	if !answering && c.outage > most {
		most = c.outage
	}
	for i := 2; i < attempt && d < most; i++ {
		d *= 2
	}
	if d > most {
		d = most
	}
	jitter := 0.8 + 0.4*rand.Float64()
	return time.Duration(float64(d) * jitter)
}

func (c *Client) buildURL(base *url.URL, req Request) (string, error) {
	path, rawQuery, _ := strings.Cut(req.Path, "?")
	u := *base
	if path != "" {
		pu, err := url.Parse(path)
		if err != nil {
			return "", fmt.Errorf("httpx: path %q: %w", req.Path, err)
		}
		u.Path = strings.TrimRight(base.Path, "/") + pu.Path
		if pu.RawPath != "" {
			u.RawPath = strings.TrimRight(base.EscapedPath(), "/") + pu.RawPath
		} else {
			u.RawPath = ""
		}
	}
	// The base URL's own query (an API key, a network selector) comes first and is kept.
	q := base.RawQuery
	if rawQuery != "" {
		if q != "" {
			q += "&"
		}
		q += rawQuery
	}
	if len(req.Query) > 0 {
		if q != "" {
			q += "&"
		}
		q += req.Query.Encode()
	}
	u.RawQuery = q
	return u.String(), nil
}

// once runs one HTTP attempt against base idx with the given timeout; retry says whether a
// failure may be retried. An attempt cut short by ctx (the caller gave up, or a hedged twin
// won) teaches nothing about the upstream and is not reported to hooks.
func (c *Client) once(ctx context.Context, idx int, req Request, timeout time.Duration) result {
	target, err := c.buildURL(c.bases[idx], req)
	if err != nil {
		return result{nil, err, false}
	}
	if err := c.limiter.acquire(ctx); err != nil {
		return result{nil, err, true}
	}
	defer c.limiter.release()

	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	start := time.Now()
	resp, err, retry := c.send(actx, target, c.shown(idx, target), req)
	if err != nil && ctx.Err() != nil {
		return result{resp, err, true} // the caller's context ended; Do reports that
	}
	switch {
	case err == nil || !retry:
		c.eps[idx].succeeded(requestKind(req), time.Since(start)) // answered, definitively
		if c.watch != nil {
			c.watch.OK(c.names[idx])
		}
	default:
		c.eps[idx].failed(time.Now())
		if c.watch != nil {
			c.watch.Failed(c.names[idx], err)
		}
	}
	if c.hooks.OnAttempt != nil {
		a := Attempt{BaseURL: c.names[idx], Method: req.Method, Path: req.Path, Err: err,
			Duration: time.Since(start), Retry: err != nil && retry}
		if resp != nil {
			a.Status = resp.Status
		}
		c.hooks.OnAttempt(a)
	}
	return result{resp, err, retry}
}

// shown is target as errors may print it: redacted only when the base carries credentials.
func (c *Client) shown(idx int, target string) string {
	if c.names[idx] == c.bases[idx].String() {
		return target
	}
	return redact.URL(target)
}

// send runs one HTTP exchange with target; errors and the Response name it as shown.
func (c *Client) send(ctx context.Context, target, shown string, req Request) (*Response, error, bool) {
	var body io.Reader
	if req.Body != nil {
		body = bytes.NewReader(req.Body)
	}
	hreq, err := http.NewRequestWithContext(ctx, req.Method, target, body)
	if err != nil {
		return nil, fmt.Errorf("httpx: %s", redact.Text(err.Error())), false
	}
	for k, vs := range c.header {
		for _, v := range vs {
			hreq.Header.Add(k, v)
		}
	}
	for k, vs := range req.Header {
		for _, v := range vs {
			hreq.Header.Add(k, v)
		}
	}
	if req.Body != nil && hreq.Header.Get("Content-Type") == "" {
		hreq.Header.Set("Content-Type", "application/json")
	}
	if hreq.Header.Get("Accept") == "" {
		hreq.Header.Set("Accept", "application/json")
	}
	hresp, err := c.hc.Do(hreq)
	if err != nil {
		// *url.Error repeats the full target; name it as shown instead.
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = shown
		}
		return nil, fmt.Errorf("%s %s: %w", req.Method, shown, err), true
	}
	defer hresp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(hresp.Body, MaxBodyBytes))
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading body: %w", req.Method, shown, err), true
	}
	resp := &Response{URL: shown, Status: hresp.StatusCode, Header: hresp.Header,
		ContentType: hresp.Header.Get("Content-Type"), Body: data}
	if hresp.StatusCode >= 200 && hresp.StatusCode < 300 {
		// jsonx.Valid is json.Valid, several times faster: every answer the indexer reads passes here.
		if req.ExpectJSON && !jsonx.Valid(data) {
			return nil, fmt.Errorf("%s %s: HTTP %d, %d bytes: %w", req.Method, shown, hresp.StatusCode, len(data), ErrInvalidBody), true
		}
		return resp, nil, false
	}
	se := &StatusError{URL: shown, Method: req.Method, Status: hresp.StatusCode, ContentType: resp.ContentType, Body: data}
	retry := hresp.StatusCode >= 500 || hresp.StatusCode == http.StatusTooManyRequests || hresp.StatusCode == http.StatusRequestTimeout
	if retry && req.Final != nil && req.Final(hresp.StatusCode, data) {
		retry = false
	}
	return resp, se, retry
}

// failureWarnEvery is how often a client logs a failed attempt at warn level; the failures in
// between are counted and reported with the next warning, so an outage is visible at once
// without a line per retry.
const failureWarnEvery = 10 * time.Second

// failureLog rate-limits the warnings about failed attempts of one client.
type failureLog struct {
	mu         sync.Mutex
	last       time.Time
	suppressed int
}

func (f *failureLog) failed(log *slog.Logger, base, path string, attempt int, err error) {
	f.mu.Lock()
	now := time.Now()
	if !f.last.IsZero() && now.Sub(f.last) < failureWarnEvery {
		f.suppressed++
		f.mu.Unlock()
		log.Debug("httpx: attempt failed", "url", base, "path", path, "attempt", attempt, "err", err)
		return
	}
	n := f.suppressed
	f.last, f.suppressed = now, 0
	f.mu.Unlock()
	log.Warn("httpx: upstream attempt failed", "url", base, "path", path, "attempt", attempt, "err", err,
		"failures_since_last_warning", n)
}

// GetJSON is a convenience for a GET expecting a JSON 2xx body.
func (c *Client) GetJSON(ctx context.Context, path string, query url.Values, header http.Header) ([]byte, error) {
	resp, err := c.Do(ctx, Request{Path: path, Query: query, Header: header, ExpectJSON: true})
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// PostJSON is a convenience for a POST of a JSON body expecting a JSON 2xx body.
func (c *Client) PostJSON(ctx context.Context, path string, body []byte, header http.Header) ([]byte, error) {
	resp, err := c.Do(ctx, Request{Method: http.MethodPost, Path: path, Body: body, Header: header, ExpectJSON: true})
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}
