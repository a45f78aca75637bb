package httpapi

// Server-Sent Events: the one streaming mechanism of both APIs. A stream route's Open
// validates the request like any handler (its error is the usual JSON answer, before any
// 200), then returns a Producer that runs while the client is connected and Sends events.
// Events go through a bounded per-client queue to a writer that owns the connection, so a
// client too slow to read never grows memory: when the queue stays full for SlowAfter the
// client is disconnected with a "reconnect" event naming the last event it was sent, and
// resumes from there (the producers read from the store, so nothing is lost).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/redact"
)

// Opener validates a stream request and returns its producer; an error is answered as any
// handler's error (a JSON 400 for bad input), before the stream starts.
type Opener func(r *http.Request) (Producer, error)

// Producer sends a stream's events until the client goes (st.Context() ends) or the stream
// has nothing more to say (it returns nil: the stream ends). An error it returns is sent as a
// final "error" event whose data is the API's JSON error body.
type Producer func(st *Stream) error

// StreamOptions tune the streams of one API; zero values take the defaults.
type StreamOptions struct {
	// MaxSubscribers caps the open streams of the API in this process; past it a request is
	// answered 503 with Retry-After. Default 10,000.
	MaxSubscribers int
	// MaxPerIP caps the open streams of one client address (the connection's, not a
	// forwarded header anyone can set). Default 100.
	MaxPerIP int
	// Heartbeat is the interval of the comment lines that keep idle proxies from closing the
	// connection. Default 15 s.
	Heartbeat time.Duration
	// Buffer is the number of events queued per client. Default 64.
	Buffer int
	// SlowAfter is how long a full queue may wait for the client before it is disconnected
	// with a "reconnect" event. Default 10 s.
	SlowAfter time.Duration
	// WriteTimeout bounds one write to the client (the server's WriteTimeout is cleared for
	// streams, which would otherwise cut every stream after it); the deadline is renewed
	// lazily, so a write may get as little as half of it. Default 30 s.
	WriteTimeout time.Duration
	// RetryAfter is the Retry-After of a 503 past a cap. Default 5 s.
	RetryAfter time.Duration
	// Caps, when set, counts this API's streams together with every other API given the same
	// Caps (one process serving several chains or listeners: a fleet, `rollgate up`), whose
	// bounds then replace MaxSubscribers and MaxPerIP. nil: the API counts its own.
	Caps *StreamCaps
}

// StreamCaps are open-stream bounds shared by several APIs of one process, so that one client
// address holds at most MaxPerIP streams of the process, not as many per API.
type StreamCaps struct {
	maxSubscribers, maxPerIP int

	mu    sync.Mutex
	open  int
	perIP map[string]int
}

// NewStreamCaps returns shared caps; a bound ≤ 0 takes StreamOptions' default.
func NewStreamCaps(maxSubscribers, maxPerIP int) *StreamCaps {
	o := StreamOptions{MaxSubscribers: maxSubscribers, MaxPerIP: maxPerIP}
	o.defaults()
	return &StreamCaps{maxSubscribers: o.MaxSubscribers, maxPerIP: o.MaxPerIP, perIP: map[string]int{}}
}

// admit counts a new stream of ip; reason is "cap" or "ip_cap" when a bound refuses it, else
// release undoes the count.
func (c *StreamCaps) admit(ip string) (release func(), reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.open >= c.maxSubscribers:
		return nil, "cap"
	case c.perIP[ip] >= c.maxPerIP:
		return nil, "ip_cap"
	}
	c.open++
	c.perIP[ip]++
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.open--
		if c.perIP[ip]--; c.perIP[ip] <= 0 {
			delete(c.perIP, ip)
		}
	}, ""
}

func (o *StreamOptions) defaults() {
	if o.MaxSubscribers <= 0 {
		o.MaxSubscribers = 10000
	}
	if o.MaxPerIP <= 0 {
		o.MaxPerIP = 100
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = 15 * time.Second
	}
	if o.Buffer <= 0 {
		o.Buffer = 64
	}
	if o.SlowAfter <= 0 {
		o.SlowAfter = 10 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 30 * time.Second
	}
	if o.RetryAfter <= 0 {
		o.RetryAfter = 5 * time.Second
	}
}

// ErrSlowClient is what Send returns once the client has been dropped for not keeping up.
var ErrSlowClient = errors.New("client too slow: disconnected")

// ErrDetached is what a Producer returns once it has handed its stream to something that
// Offers it events from elsewhere (one goroutine fanning a shared feed out to every stream at
// the tip): the stream stays open, without the producer's goroutine, until the client goes.
var ErrDetached = errors.New("stream detached from its producer")

// Stream is one open event stream, handed to its Producer.
type Stream struct {
	ctx    context.Context
	q      chan *Frame
	slow   chan struct{} // closed when the client is dropped as too slow
	once   sync.Once
	after  time.Duration
	lastMu sync.Mutex
	last   string // id of the last event written to the connection
}

// Frame is one event framed for the wire, built once and written to any number of streams
// (it is never changed after NewFrame).
type Frame struct {
	id string
	b  []byte
}

// NewFrame frames one event; data is copied.
func NewFrame(id, name string, data []byte) *Frame {
	return &Frame{id: id, b: appendEvent(make([]byte, 0, len(data)+len(id)+len(name)+24), id, name, data)}
}

// ID is the frame's event id.
func (f *Frame) ID() string { return f.id }

// Bytes is the frame as written to the wire; it must not be changed.
func (f *Frame) Bytes() []byte { return f.b }

// Context ends when the client goes away, the server shuts down or the client is dropped.
func (st *Stream) Context() context.Context { return st.ctx }

// Send queues one event; data is copied. It waits up to SlowAfter for room in the client's
// queue, then drops the client (ErrSlowClient). It returns the context's error once the
// stream is over.
func (st *Stream) Send(id, name string, data []byte) error {
	return st.SendFrame(NewFrame(id, name, data))
}

// SendFrame is Send of a framed event, shared with other streams.
func (st *Stream) SendFrame(ev *Frame) error {
	select {
	case st.q <- ev:
		return nil
	case <-st.ctx.Done():
		return st.ctx.Err()
	default:
	}
	t := time.NewTimer(st.after)
	defer t.Stop()
	select {
	case st.q <- ev:
		return nil
	case <-st.ctx.Done():
		return st.ctx.Err()
	case <-t.C:
		st.once.Do(func() { close(st.slow) })
		return ErrSlowClient
	}
}

// Offer queues a framed event without waiting: a full queue drops the client as too slow
// (its "reconnect" event names the last event written, so it resumes without loss). It
// reports whether the event was queued; false also once the stream is over.
func (st *Stream) Offer(ev *Frame) bool {
	if st.ctx.Err() != nil {
		return false
	}
	select {
	case st.q <- ev:
		return true
	default:
		st.once.Do(func() { close(st.slow) })
		return false
	}
}

func (st *Stream) lastID() string {
	st.lastMu.Lock()
	defer st.lastMu.Unlock()
	return st.last
}

// LastEventID is where a client resumes: the Last-Event-ID header EventSource sends on
// reconnecting, else the from query parameter; "" when neither is given.
func LastEventID(r *http.Request) string {
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		return v
	}
	return r.URL.Query().Get("from")
}

// streams is one API's registry of open streams: the caps, the metrics and the shutdown.
type streams struct {
	opts    StreamOptions
	caps    *StreamCaps // opts.Caps, or the API's own
	mu      sync.Mutex
	servers map[*http.Server]chan struct{}
	m       *streamMetrics
}

type streamMetrics struct {
	subscribers *prometheus.GaugeVec   // by route
	events      *prometheus.CounterVec // by route
	drops       *prometheus.CounterVec // by reason: slow, cap, ip_cap
}

func newStreams(opts StreamOptions, reg prometheus.Registerer, ns string) *streams {
	opts.defaults()
	caps := opts.Caps
	if caps == nil {
		caps = NewStreamCaps(opts.MaxSubscribers, opts.MaxPerIP)
	}
	return &streams{opts: opts, caps: caps, servers: map[*http.Server]chan struct{}{}, m: &streamMetrics{
		subscribers: register(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: ns + "_stream_subscribers",
			Help: "Open event streams by route pattern.",
		}, []string{"route"})),
		events: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: ns + "_stream_events_total",
			Help: "Events written to stream clients by route pattern (heartbeats not counted).",
		}, []string{"route"})),
		drops: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: ns + "_stream_drops_total",
			Help: "Stream clients refused or disconnected by reason (slow: could not keep up; cap, ip_cap: over a subscriber cap).",
		}, []string{"reason"})),
	}}
}

// admit counts a new stream of ip against the caps; the returned release undoes it.
func (h *streams) admit(ip string) (release func(), err error) {
	release, reason := h.caps.admit(ip)
	if reason != "" {
		h.m.drops.WithLabelValues(reason).Inc()
		return nil, &apierr.Error{Code: apierr.Unavailable, Expected: true, Details: []string{"TOO_MANY_STREAMS"},
			Message: "too many open streams; retry later"}
	}
	return release, nil
}

// lifetime is what ends a stream of r: base is the context its producer runs under, gone is
// closed when the client goes, shutdown when the server shuts down (the stream then says
// "reconnect" before it ends). Under fasthttp (serve.go) the request's context is the
// server's, cancelled by its shutdown and never by the client: base is then detached from it,
// so the producer outlives the shutdown signal until the reconnect event is written, and a
// client that went is found by the next write failing (a heartbeat at the latest).
func (h *streams) lifetime(r *http.Request) (base context.Context, gone, shutdown <-chan struct{}) {
	if fc, ok := r.Context().(*fasthttp.RequestCtx); ok {
		return context.WithoutCancel(r.Context()), nil, fc.Done()
	}
	return r.Context(), r.Context().Done(), h.shutdown(r)
}

// shutdown returns a channel closed when the request's net/http server shuts down.
// http.Server's Shutdown waits for handlers to return and never cancels them, so without this
// an open stream would hold Shutdown until its deadline.
func (h *streams) shutdown(r *http.Request) <-chan struct{} {
	srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if srv == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	ch, ok := h.servers[srv]
	if !ok {
		ch = make(chan struct{})
		h.servers[srv] = ch
		srv.RegisterOnShutdown(func() {
			h.mu.Lock()
			delete(h.servers, srv)
			h.mu.Unlock()
			close(ch)
		})
	}
	return ch
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// serveStream answers a stream route under net/http and returns the status written.
func (s *server) serveStream(w http.ResponseWriter, r *http.Request, rt Route) (status int) {
	prod, release, err := s.openStream(r, rt)
	if err != nil {
		if isStreamCap(err) {
			w.Header().Set("Retry-After", s.streams.retryAfter())
		}
		return s.fail(w, r, rt, err)
	}
	defer release()
	rc := http.NewResponseController(w)
	// The server's read and write deadlines are for requests, not for a response that lasts
	// hours; each write gets its own deadline (sink.write).
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	streamHeaders(w.Header())
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return http.StatusOK
	}
	base, gone, shutdown := s.streams.lifetime(r)
	return s.runStream(r, rt, prod, &sink{w: w, flush: rc.Flush, deadline: rc.SetWriteDeadline}, base, gone, shutdown)
}

// openStream admits a stream of r and opens its producer; on an error nothing is held (release
// is nil) and the error is the answer.
func (s *server) openStream(r *http.Request, rt Route) (prod Producer, release func(), err error) {
	release, err = s.streams.admit(clientIP(r))
	if err != nil {
		return nil, nil, err
	}
	prod, err = func() (p Producer, err error) {
		defer func() {
			if v := recover(); v != nil {
				s.m.panics.Inc()
				err = fmt.Errorf("panic in %s: %v", rt.Pattern, v)
			}
		}()
		return rt.Stream(r)
	}()
	if err != nil {
		release()
		return nil, nil, err
	}
	return prod, release, nil
}

// isStreamCap reports admit's refusal, which carries the caps' own Retry-After.
func isStreamCap(err error) bool {
	var e *apierr.Error
	return errors.As(err, &e) && slices.Contains(e.Details, "TOO_MANY_STREAMS")
}

func (h *streams) retryAfter() string { return strconv.Itoa(int(h.opts.RetryAfter.Seconds())) }

// streamHeaders are the headers of an open stream.
func streamHeaders(h http.Header) {
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx would otherwise buffer the stream
}

// sink is where a stream's bytes go: net/http's ResponseWriter, or fasthttp's body writer.
type sink struct {
	w        io.Writer
	flush    func() error
	deadline func(time.Time) error
}

// runStream writes a stream's events until it ends, and returns the status recorded: base is
// the producer's context, gone closes when the client goes, shutdown when the server shuts
// down (see lifetime).
func (s *server) runStream(r *http.Request, rt Route, prod Producer, out *sink, base context.Context, gone, shutdown <-chan struct{}) (status int) {
	opts := s.streams.opts
	ctx, cancel := context.WithCancel(base)
	defer cancel()
	events := s.streams.m.events.WithLabelValues(rt.Pattern)
	st := &Stream{ctx: ctx, q: make(chan *Frame, opts.Buffer), slow: make(chan struct{}), after: opts.SlowAfter}
	subs := s.streams.m.subscribers.WithLabelValues(rt.Pattern)
	subs.Inc()
	defer subs.Dec()

	// Setting a deadline re-arms the connection's runtime timer, which at 10,000 streams and
	// one write each per block is a cost of its own: the deadline is moved only once half of
	// WriteTimeout has passed, so a write is bounded by between half of it and all of it.
	var deadline time.Time
	write := func(b []byte) bool {
		if now := time.Now(); deadline.Sub(now) < opts.WriteTimeout/2 {
			deadline = now.Add(opts.WriteTimeout)
			_ = out.deadline(deadline)
		}
		if _, err := out.w.Write(b); err != nil {
			return false
		}
		return out.flush() == nil
	}
	// The first comment tells the client (and any proxy) the stream is open.
	if !write([]byte(": ok\n\n")) {
		return http.StatusOK
	}
	done := make(chan error, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				s.m.panics.Inc()
				done <- fmt.Errorf("panic in %s: %v", rt.Pattern, v)
			}
		}()
		done <- prod(st)
	}()
	// Whatever ends the stream, the producer is stopped and waited for: no goroutine outlives
	// the request.
	prodDone := false
	defer func() {
		cancel()
		if !prodDone {
			if err := <-done; err != nil {
				// The stream has ended already: nobody is left to tell.
				s.log.Debug("stream producer ended after its stream", "route", rt.Pattern, "err", err)
			}
		}
	}()
	heartbeat := time.NewTicker(opts.Heartbeat)
	defer heartbeat.Stop()
	var interrupted <-chan struct{}
	var check func() error
	if s.opts.StreamInterrupt != nil {
		interrupted, check = s.opts.StreamInterrupt()
	}
	producer := done // nil once the producer has detached
	writeEvent := func(ev *Frame) bool {
		if !write(ev.b) {
			return false
		}
		events.Inc()
		if ev.id != "" {
			st.lastMu.Lock()
			st.last = ev.id
			st.lastMu.Unlock()
		}
		return true
	}
	reconnect := func(reason string) {
		last := st.lastID()
		data := fmt.Appendf(nil, `{"reason":%q,"last_event_id":%q}`, reason, last)
		writeEvent(NewFrame(last, "reconnect", data))
	}
	for {
		select {
		case <-st.slow:
			// The queued events are dropped with the client: it resumes after the last one sent.
			s.streams.m.drops.WithLabelValues("slow").Inc()
			reconnect("slow client")
			return http.StatusOK
		default:
		}
		select {
		case ev := <-st.q:
			if !writeEvent(ev) {
				return http.StatusOK
			}
		case err := <-producer:
			prodDone = true
			if errors.Is(err, ErrDetached) {
				// The events come from elsewhere now; the stream goes on.
				producer = nil
				continue
			}
			// What the producer queued before it ended is still delivered.
			for {
				select {
				case ev := <-st.q:
					if !writeEvent(ev) {
						return http.StatusOK
					}
					continue
				default:
				}
				break
			}
			if err != nil && !errors.Is(err, ErrSlowClient) && base.Err() == nil && ctx.Err() == nil {
				s.streamError(r, rt, err, writeEvent)
			} else if errors.Is(err, ErrSlowClient) {
				s.streams.m.drops.WithLabelValues("slow").Inc()
				reconnect("slow client")
			}
			return http.StatusOK
		case <-heartbeat.C:
			if !write([]byte(": heartbeat\n\n")) {
				return http.StatusOK
			}
		case <-interrupted:
			if err := check(); err != nil {
				s.streamError(r, rt, err, writeEvent)
				return http.StatusOK
			}
			interrupted, check = s.opts.StreamInterrupt()
		case <-shutdown:
			reconnect("server shutting down")
			return http.StatusOK
		case <-gone:
			s.m.disconnects.WithLabelValues(rt.Pattern).Inc()
			return StatusClientGone
		}
	}
}

// StatusClientGone is the status recorded for a stream its client closed.
const StatusClientGone = apierr.StatusClientClosedRequest

// streamError sends err as the final "error" event: the API's JSON error body.
func (s *server) streamError(r *http.Request, rt Route, err error, send func(*Frame) bool) {
	if s.opts.MapError != nil {
		err = s.opts.MapError(err)
	}
	e := apierr.From(err)
	if e.Code.HTTPStatus() >= 500 && !e.Expected {
		s.log.Error("stream failed", "path", r.URL.Path, "route", rt.Pattern, "err", redact.Text(err.Error()))
	}
	send(NewFrame("", "error", ErrorJSON(e)))
}

// ErrorJSON is the JSON error body of e, as apierr.Write sends it, without the newline.
func ErrorJSON(e *apierr.Error) []byte {
	rec := &bodyRecorder{h: http.Header{}}
	apierr.Write(rec, &http.Request{}, nil, e)
	return []byte(strings.TrimRight(string(rec.b), "\n"))
}

type bodyRecorder struct {
	h http.Header
	b []byte
}

func (b *bodyRecorder) Header() http.Header         { return b.h }
func (b *bodyRecorder) WriteHeader(int)             {}
func (b *bodyRecorder) Write(p []byte) (int, error) { b.b = append(b.b, p...); return len(p), nil }

// appendEvent frames one event. Data is JSON on one line here, but a newline in it would end
// the field, so each line becomes its own data field (the client joins them back).
func appendEvent(b []byte, id, name string, data []byte) []byte {
	if name != "" {
		b = append(append(append(b, "event: "...), name...), '\n')
	}
	if id != "" {
		b = append(append(append(b, "id: "...), id...), '\n')
	}
	for {
		line, rest, more := strings.Cut(string(data), "\n")
		b = append(append(append(b, "data: "...), line...), '\n')
		if !more || rest == "" {
			break
		}
		data = []byte(rest)
	}
	return append(b, '\n')
}
