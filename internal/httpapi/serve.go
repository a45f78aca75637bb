package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"
)

// The server timeouts of both transports: a request's headers within ReadHeaderTimeout
// (counted from the connection's opening, or from the first byte after an idle wait), the
// whole request within ReadTimeout, its answer within WriteTimeout (a stream lifts its own
// write deadline, stream.go), an idle kept-alive connection closed after IdleTimeout.
// fasthttp has no header timeout of its own: its ReadTimeout is set to readHeaderTimeout and,
// once the headers are in, the body gets the rest of readTimeout (serveFasthttp).
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 60 * time.Second
	idleTimeout       = 120 * time.Second
	// shutdownGrace is how long a shutdown waits for requests in flight.
	shutdownGrace = 10 * time.Second
)

// Serve runs h on ln until ctx ends, then shuts it down gracefully (open streams are ended
// by the shutdown) and returns ctx's error.
//
// An API built by New with a response cache is served by fasthttp: a cached answer is
// written from the cache straight onto the connection (serveFast), which is where the
// explorers' polling lands and where net/http's own cost per request was the limit (figures
// in docs/performance.md, "HTTP stack"). Every other request goes through the
// same http.Handler as under net/http, by fasthttp's adaptor, so routing, errors, streams,
// CORS and metrics stay the one implementation. A Dispatcher in front of such APIs (the fleet
// of chains) is served the same way, each request's API found by Dispatch. Any other handler
// (one wrapped for the access log, pprof) is served by net/http.
//
// On both, what the transport refuses before h sees it is the JSON error with a 4xx, counted
// by h when it is a Rejecter and logged at debug on log (reject.go).
func Serve(ctx context.Context, ln net.Listener, h http.Handler, log *slog.Logger) error {
	switch d := h.(type) {
	case *server:
		if d.cache != nil {
			return serveFasthttp(ctx, ln, h, func(c *fasthttp.RequestCtx) (*server, []byte) {
				return d, c.URI().PathOriginal()
			}, log)
		}
	case Dispatcher:
		return serveFasthttp(ctx, ln, h, func(c *fasthttp.RequestCtx) (*server, []byte) {
			api, path, ok := d.Dispatch(string(c.Host()), string(c.URI().PathOriginal()))
			if s, isAPI := api.(*server); ok && isAPI && s.cache != nil {
				return s, []byte(path)
			}
			return nil, nil
		}, log)
	}
	return serveNetHTTP(ctx, ln, h, log)
}

// Dispatcher is a handler in front of APIs built by New, such as the fleet of chains, which
// serves each request by one of them (or answers it itself).
type Dispatcher interface {
	http.Handler
	// Dispatch returns the API that serves a request with this Host header and escaped path,
	// and the path as that API routes it; ok is false for a request the Dispatcher answers
	// itself. It must agree with ServeHTTP, which is what answers everything Serve does not.
	Dispatch(host, path string) (api http.Handler, apiPath string, ok bool)
}

func serveNetHTTP(ctx context.Context, ln net.Listener, h http.Handler, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	srv := &http.Server{
		Handler: h,
		// net/http reads 4096 bytes beyond MaxHeaderBytes before it refuses (its bufio slop):
		// so both transports refuse a header block above maxHeaderBytes.
		MaxHeaderBytes:    maxHeaderBytes - 4096,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
	}
	ln = rejects{h: h, log: log}.listener(ln)
	return runUntil(ctx, func() error { return srv.Serve(ln) }, srv.Shutdown,
		func(err error) bool { return errors.Is(err, http.ErrServerClosed) })
}

// runUntil runs serve until ctx ends, then shuts the server down (shutdownGrace for requests in
// flight) and returns ctx's error; closed tells serve's error on a shutdown from a failure.
func runUntil(ctx context.Context, serve func() error, shutdown func(context.Context) error, closed func(error) bool) error {
	errc := make(chan error, 1)
	go func() { errc <- serve() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		if err := shutdown(sctx); err != nil {
			return err
		}
		if err := <-errc; err != nil && !closed(err) {
			return err
		}
		return ctx.Err()
	}
}

// serveFasthttp serves h with fasthttp: api names the API a request is for and the path it
// routes (nil: none of New's), whose cached answers and streams are written here; everything
// else goes to h through the adaptor.
func serveFasthttp(ctx context.Context, ln net.Listener, h http.Handler, api func(*fasthttp.RequestCtx) (*server, []byte), log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	slow := fasthttpadaptor.NewFastHTTPHandler(h)
	rj := rejects{h: h, log: log}
	srv := &fasthttp.Server{
		Handler: func(c *fasthttp.RequestCtx) {
			if c.IsGet() || c.IsHead() {
				if s, path := api(c); s != nil && (s.serveFast(c, path) || s.serveStreamFast(c, path)) {
					return
				}
			}
			// fasthttp takes any bytes as a URI; the adaptor parses it as net/http does and
			// answers what does not parse (a malformed escape) with a plain-text 500.
			if _, err := url.ParseRequestURI(string(c.RequestURI())); err != nil {
				rj.writeFast(c, rejectMalformed("malformed request URI: "+uriError(err)))
				return
			}
			if wantsExportFast(c) {
				serveExportFast(c, h) // the adaptor would hold the whole export (exportfast.go)
				return
			}
			slow(c)
		},
		ErrorHandler: rj.fasthttpError,
		HeaderReceived: func(*fasthttp.RequestHeader) fasthttp.RequestConfig {
			return fasthttp.RequestConfig{ReadTimeout: readTimeout - readHeaderTimeout}
		},
		// net/http sends no Server header, and neither do we.
		NoDefaultServerHeader: true,
		// A response without a Content-Type stays without one, as under net/http.
		NoDefaultContentType: true,
		// No route takes a form: a multipart body is the handler's to refuse, not to parse.
		DisablePreParseMultipartForm: true,
		// ReadTimeout bounds the headers, counted from the connection's opening or from the
		// first byte after an idle wait (IdleTimeout): net/http's ReadHeaderTimeout.
		// HeaderReceived then gives the body the rest of readTimeout.
		ReadTimeout:  readHeaderTimeout,
		WriteTimeout: writeTimeout,
		IdleTimeout:  idleTimeout,
		// The largest request the adaptor buffers: the routes' own limits are smaller and answer
		// a JSON 413; a body above this one is refused before it is read.
		MaxRequestBodySize: maxAdaptedBody,
		// A request's line and header block may be this large; above it the answer is a JSON
		// 431 (reject.go), as under net/http.
		ReadBufferSize:  maxHeaderBytes,
		CloseOnShutdown: true,
		Logger:          fastLogger{log},
	}
	shutdown := func(ctx context.Context) error {
		err := srv.ShutdownWithContext(ctx)
		// A shutdown that came before Serve took the listener does not stop it (net/http's
		// does): closing the listener does.
		_ = ln.Close()
		return err
	}
	return runUntil(ctx, func() error { return srv.Serve(ln) }, shutdown,
		func(err error) bool { return errors.Is(err, net.ErrClosed) })
}

// maxAdaptedBody bounds a request body under fasthttp (it reads a body whole before the
// handler runs); every route that reads a body sets a smaller limit of its own.
const maxAdaptedBody = 8 << 20

// fastLogger puts fasthttp's own messages (a connection it could not serve) in the log.
type fastLogger struct{ log *slog.Logger }

func (l fastLogger) Printf(format string, args ...any) {
	l.log.Debug("http server", "msg", strings.TrimSpace(fmt.Sprintf(format, args...)))
}

// serveFast answers c from the cache when it holds a current answer for path (c's, as this
// API routes it) and c's query,
// with what serve would write (status, headers, body, metrics); it reports false, having
// written nothing, when the request must go through the http.Handler. Only a plain path is
// looked up here: one the ServeMux would clean, redirect or unescape differently goes the long
// way, so the key names the same route it names under net/http (appendKey).
func (s *server) serveFast(c *fasthttp.RequestCtx, path []byte) (ok bool) {
	if !c.IsGet() && !c.IsHead() || wantsCSV(string(c.Request.Header.Peek("Accept"))) {
		return false
	}
	start := time.Now()
	if !plainPath(path) {
		return false
	}
	var kb [maxStackKey]byte
	key := append(append(append(kb[:0], path...), '?'), c.URI().QueryString()...)
	a, hit := s.cache.get(key)
	if !hit || a.route == nil || a.route.s != s {
		return false
	}
	cr := a.route
	if !s.current(context.Background(), cr, a) {
		return false
	}
	s.m.cacheHit.Inc()
	status := s.writeFast(c, cr.rt, a)
	cr.rm.observe(status, time.Since(start))
	return true
}

// plainPath reports whether p is a path the ServeMux routes as it is: absolute, with no
// escapes, no empty, "." or ".." segment and no trailing slash (ServeHTTP trims one).
func plainPath(p []byte) bool {
	if len(p) == 0 || p[0] != '/' {
		return false
	}
	if len(p) > 1 && p[len(p)-1] == '/' {
		return false
	}
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '%':
			return false
		case '/':
			if i+1 < len(p) && p[i+1] == '/' {
				return false
			}
		case '.':
			if p[i-1] == '/' && (i+1 == len(p) || p[i+1] == '/' || p[i+1] == '.' && (i+2 == len(p) || p[i+2] == '/')) {
				return false
			}
		}
	}
	return true
}

// Header names of cached answers, as net/http writes them (canonical keys).
var (
	hCacheControl = []byte("Cache-Control")
	hETag         = []byte("Etag")
)

// writeFast is write for a cached answer under fasthttp, with the CORS headers ServeHTTP adds.
func (s *server) writeFast(c *fasthttp.RequestCtx, rt Route, a *answer) int {
	h := &c.Response.Header
	if s.cors != nil {
		s.cors.actualFast(h, c.Request.Header.Peek("Origin"))
	}
	_, cc := s.cc.of(rt, a)
	h.SetCanonical(hCacheControl, cc)
	if a.etag != "" {
		h.SetCanonical(hETag, []byte(a.etag))
		if etagMatches(string(c.Request.Header.Peek("If-None-Match")), a.etag) {
			c.SetStatusCode(http.StatusNotModified)
			return http.StatusNotModified
		}
	}
	// After the 304 check: net/http drops Content-Type from a 304.
	h.SetContentType(a.contentType)
	c.SetStatusCode(http.StatusOK)
	// The cache never changes a body it holds, so fasthttp may write it without a copy;
	// for HEAD fasthttp sends the length and skips the body.
	c.Response.SetBodyRaw(a.body)
	return http.StatusOK
}

// serveStreamFast answers a stream route under fasthttp. Once the stream is admitted and its
// producer open, the connection is taken over (hijacked): one goroutine writes the response
// head and then each event as one chunk, in one write each, straight to the connection. Both
// of fasthttp's own ways cost a stream a second goroutine, a pipe and a copy of every event
// (its body stream writer, and the adaptor), which at 10,000 subscribers is most of the
// memory. It reports false for a request that is not a stream's.
func (s *server) serveStreamFast(c *fasthttp.RequestCtx, path []byte) bool {
	if !c.IsGet() && !c.IsHead() {
		return false
	}
	cr, ok := s.streamPaths[string(path)]
	if !ok {
		return false
	}
	var req http.Request
	if err := fasthttpadaptor.ConvertRequest(c, &req, true); err != nil {
		return false // the adaptor answers what it cannot convert
	}
	// The request's strings are views of c's buffers: valid until the hijack handler returns,
	// which is as long as the stream uses them.
	r := req.WithContext(c)
	rt := cr.rt
	// The headers ServeHTTP adds before routing, then the stream's or the error's.
	rec := &bodyRecorder{h: http.Header{}}
	if s.cors != nil {
		s.cors.actual(rec.h, r)
	}
	// reply writes what is not a stream: the error, or the head of one (HEAD).
	reply := func(status int) bool {
		for k, vs := range rec.h {
			for _, v := range vs {
				c.Response.Header.Add(k, v)
			}
		}
		c.SetStatusCode(status)
		c.Response.SetBodyRaw(rec.b)
		cr.rm.count(status)
		return true
	}
	prod, release, err := s.openStream(r, rt)
	if err != nil {
		if isStreamCap(err) {
			rec.h.Set("Retry-After", s.streams.retryAfter())
		}
		return reply(s.fail(rec, r, rt, err))
	}
	streamHeaders(rec.h)
	if c.IsHead() {
		release()
		return reply(http.StatusOK)
	}
	// The server's shutdown ends the stream (with a reconnect event); the client going is
	// found by the next write failing, a heartbeat at the latest.
	shutdown := c.Done()
	c.HijackSetNoResponse(true)
	c.Hijack(func(conn net.Conn) {
		defer release()
		head := append([]byte("HTTP/1.1 200 OK\r\n"), "Date: "+time.Now().UTC().Format(http.TimeFormat)+"\r\n"...)
		rec.h.Set("Transfer-Encoding", "chunked")
		for k, vs := range rec.h {
			for _, v := range vs {
				head = append(append(append(append(head, k...), ": "...), v...), "\r\n"...)
			}
		}
		head = append(head, "\r\n"...)
		_ = conn.SetWriteDeadline(time.Now().Add(s.streams.opts.WriteTimeout))
		if _, err := conn.Write(head); err != nil {
			cr.rm.count(StatusClientGone)
			return
		}
		out := &sink{w: &chunkWriter{conn: conn}, flush: func() error { return nil }, deadline: conn.SetWriteDeadline}
		status := s.runStream(r, rt, prod, out, context.Background(), nil, shutdown)
		_, _ = conn.Write([]byte("0\r\n\r\n")) // the last chunk; fasthttp closes the connection
		cr.rm.count(status)
	})
	return true
}

// chunkWriter writes each Write as one HTTP/1.1 chunk, in one write: the chunk is assembled
// in buf (kept for the stream's next event) because the hijacked connection is fasthttp's
// wrapper, on which net.Buffers would make three writes of it.
type chunkWriter struct {
	conn net.Conn
	buf  []byte
}

func (w *chunkWriter) Write(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	w.buf = append(append(append(strconv.AppendInt(w.buf[:0], int64(len(b)), 16), '\r', '\n'), b...), '\r', '\n')
	if _, err := w.conn.Write(w.buf); err != nil {
		return 0, err
	}
	if cap(w.buf) > maxChunkBuf {
		w.buf = nil // a rare large event does not stay in memory with an idle stream
	}
	return len(b), nil
}

// maxChunkBuf is the largest chunk buffer a stream keeps between events.
const maxChunkBuf = 16 << 10

// LingeringGoroutines are functions of goroutines fasthttp leaves behind by design, for
// leak checks to ignore: the date ticker it starts once per process, and a stopped server's
// worker-pool cleaner, which sees the stop at its next wake-up (MaxIdleWorkerDuration, 10 s).
var LingeringGoroutines = []string{
	"github.com/valyala/fasthttp.updateServerDate.func1",
	"github.com/valyala/fasthttp.(*workerPool).Start.func2",
}
