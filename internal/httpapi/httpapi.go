// Package httpapi is the one HTTP layer of rollgate's two APIs, the indexer's and the
// router's. An API is a routes table: each Route pairs a net/http ServeMux pattern with a
// Handler, the one handler signature, which returns a body or an error and never touches the
// ResponseWriter. One wrap turns either into the response, so status codes, JSON error bodies
// (internal/apierr), cache headers, CORS, 405s, client disconnects and metrics are decided
// here, once, for both APIs (in the manner of Prometheus' web/api/v1).
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/textclip"
)

// Handler is the one handler signature. The body it returns is JSON-encoded, except Raw and
// Blob, which are written as they are; Pinned marks a body that will never change.
type Handler func(r *http.Request) (any, error)

// Route is one entry of an API's routes table.
type Route struct {
	// Pattern is a ServeMux pattern with its method ("GET /indexer/tx/v1/txs/{tx_hash}"); it
	// is also the route's metrics label. A GET route answers HEAD too.
	Pattern string
	Handler Handler
	// InSpec marks the routes the API's OpenAPI document must describe (each API's swagger
	// test checks both directions); operational routes are left out of the document.
	InSpec bool
	// NoStore answers with Cache-Control: no-store (health, answers to POSTs).
	NoStore bool
	// Cache lets Options.Cache keep the route's answers: Pinned ones for good, others while
	// Options.Version is unchanged. Only for routes whose answer is a function of the path,
	// the query and that version.
	Cache bool
	// CachePinned lets Options.Cache keep the route's Pinned answers only: for routes whose
	// other answers depend on something Options.Version does not follow (the internal txs,
	// traced behind the indexed height), so keying them on it could serve a stale page.
	CachePinned bool
	// Stream makes the route an event stream (stream.go); Handler is then unused.
	Stream Opener
}

// Method is the pattern's method ("GET").
func (rt Route) Method() string { m, _, _ := strings.Cut(rt.Pattern, " "); return m }

// Path is the pattern's path ("/indexer/tx/v1/txs/{tx_hash}").
func (rt Route) Path() string { _, p, _ := strings.Cut(rt.Pattern, " "); return p }

// Raw is a body the handler already encoded as JSON (tx lists splice stored tx JSON in
// verbatim rather than re-encoding it).
type Raw []byte

// PooledRaw is a Raw body in a buffer from BodyBuffer: once the answer is written the buffer
// goes back to the pool (the response cache keeps a copy of what it keeps).
type PooledRaw []byte

// maxPooledBody bounds the buffers kept for reuse: a rare huge page should not stay in memory.
const maxPooledBody = 1 << 20

// bodies holds *[]byte: a pointer, so that Put does not allocate a copy of the slice header
// in an interface (it allocates the small pointer instead).
var bodies sync.Pool

// BodyBuffer returns an empty buffer of capacity at least n for a PooledRaw body. Lists of
// stored JSON are tens of kB a page; allocating each afresh kept the garbage collector and
// the scavenger busy (a quarter of a tx list's CPU, see docs/performance.md).
func BodyBuffer(n int) []byte {
	if p, ok := bodies.Get().(*[]byte); ok {
		if cap(*p) >= n {
			return (*p)[:0]
		}
		bodies.Put(p) // for a smaller body
	}
	return make([]byte, 0, n)
}

func releaseBody(b []byte) {
	if cap(b) > maxPooledBody {
		return
	}
	b = b[:0]
	bodies.Put(&b)
}

// Blob is a body that is not JSON (Swagger UI's files).
type Blob struct {
	ContentType string
	Body        []byte
}

// Pinned wraps a body whose content is fixed for good (a block or tx that exists), so
// clients and proxies may keep it longer.
type Pinned struct{ Body any }

// Options configure one API.
type Options struct {
	// Namespace prefixes the metric names ("rollgate_indexer_api" gives
	// rollgate_indexer_api_requests_total and friends).
	Namespace string
	// Log receives server errors at error level and client disconnects at debug; nil discards.
	Log *slog.Logger
	// Registry receives the metrics and is served at /metrics; nil means a private registry.
	// Two APIs built on one registry share the collectors instead of failing.
	Registry *prometheus.Registry
	// Gatherer, when set, is what /metrics serves instead of Registry alone (the fleet: its
	// own registry and every chain's). A gather error is logged and the rest still served.
	Gatherer prometheus.Gatherer
	// RequestTimeout bounds a handler's context; exceeding it is a 504. Zero means no bound.
	RequestTimeout time.Duration
	// MaxAge is the Cache-Control max-age of successful answers; default 1 s.
	MaxAge time.Duration
	// PinnedMaxAge is the max-age of Pinned answers; default 60 s.
	PinnedMaxAge time.Duration
	// MapError turns the API's domain errors (store.ErrNotFound, route errors, ...) into
	// *apierr.Error; anything it returns unchanged is classified by apierr.From. Nil means
	// handlers return apierr errors themselves.
	MapError func(error) error
	// NotFound is the error for a path no route serves; default a 404 naming the request.
	NotFound func(r *http.Request) error
	// OpenAPI is served at /swagger/doc.json, with Swagger UI (embedded) at /swagger/; nil
	// serves neither.
	OpenAPI []byte
	// CORS lets browser apps on other origins call the API.
	CORS CORS
	// Cache keeps answers of the routes marked Cache; nil caches nothing.
	Cache *Cache
	// Version is what an unpinned cached answer depends on (the indexer: its indexed height).
	// Without it only Pinned answers are cached.
	Version func(ctx context.Context) (int64, error)
	// VersionNow, when set, is Version when it is known without waiting (no I/O): a cache hit
	// asks it first and reads Version, under the request timeout, only when it says no.
	VersionNow func() (int64, bool)
	// Streams tune the routes that are event streams (stream.go).
	Streams StreamOptions
	// StreamInterrupt, when set, can end every open stream with an "error" event: it returns
	// a channel closed at the next change of the server's state and a check, asked then,
	// whose error ends the stream (nil: the stream goes on and StreamInterrupt is asked
	// again). The indexer ends its streams so when its node turns out to serve another chain.
	StreamInterrupt func() (changed <-chan struct{}, check func() error)
}

func (o *Options) defaults() {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Registry == nil {
		o.Registry = prometheus.NewRegistry()
	}
	if o.MaxAge == 0 {
		o.MaxAge = time.Second
	}
	if o.PinnedMaxAge == 0 {
		o.PinnedMaxAge = 60 * time.Second
	}
	if o.NotFound == nil {
		o.NotFound = func(r *http.Request) error {
			return apierr.NotFoundf("no route for %s %s", r.Method, textclip.Clip(r.URL.Path))
		}
	}
}

type server struct {
	opts  Options
	log   *slog.Logger
	mux   *http.ServeMux
	m     *metrics
	cors  *cors
	cache *Cache
	cc    cacheControl
	// options are the metrics of OPTIONS answers (labelled "OPTIONS").
	options *routeMetrics
	// rejected are the metrics of requests the transport refused before routing (reject.go).
	rejected *routeMetrics
	streams  *streams
	// warmMux routes Warm's targets to the cacheable routes (warm.go); nil without a cache.
	warmMux *http.ServeMux
	warm    *warmMetrics
	// streamPaths are the stream routes by their path, when it has no wildcard (serve.go).
	streamPaths map[string]*cachedRoute
}

// unmatched is the metrics label of requests no route serves (404, 405).
const unmatched = "unmatched"

// New returns the API serving routes, plus /metrics, /swagger/ (when opts.OpenAPI is set),
// answers to OPTIONS and CORS preflights, and JSON 404s and 405s for everything else.
func New(opts Options, routes []Route) http.Handler {
	opts.defaults()
	s := &server{opts: opts, log: opts.Log, mux: http.NewServeMux(), m: newMetrics(opts.Registry, opts.Namespace), cache: opts.Cache,
		cc: newCacheControl(opts), streamPaths: map[string]*cachedRoute{}}
	s.options = s.m.forRoute("OPTIONS")
	s.rejected = s.m.forRoute(rejected)
	s.warm = newWarmMetrics(opts.Registry, opts.Namespace)
	s.streams = newStreams(opts.Streams, opts.Registry, opts.Namespace)
	if opts.CORS.Enabled {
		s.cors = newCORS(opts.CORS)
	}
	for _, rt := range routes {
		s.mux.Handle(rt.Pattern, s.wrap(rt))
		s.registerWarm(rt)
	}
	if opts.OpenAPI != nil {
		for _, rt := range swaggerRoutes(opts.OpenAPI) {
			s.mux.Handle(rt.Pattern, s.wrap(rt))
		}
		s.mux.Handle("GET /swagger", http.RedirectHandler("/swagger/", http.StatusMovedPermanently))
	}
	s.mux.Handle("GET /metrics", metricsHandler(opts))
	s.mux.Handle("/", http.HandlerFunc(s.unmatched))
	return s
}

// ServeHTTP tolerates a trailing slash, answers OPTIONS, and adds the CORS headers before
// routing.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Swagger UI's own page keeps its slash: its relative asset URLs need it.
	if p := r.URL.Path; len(p) > 1 && strings.HasSuffix(p, "/") && p != "/swagger/" {
		r2 := r.Clone(r.Context())
		r2.URL.Path = strings.TrimRight(p, "/")
		r2.URL.RawPath = strings.TrimRight(r.URL.RawPath, "/")
		if r2.URL.Path == "" {
			r2.URL.Path = "/"
		}
		r = r2
	}
	if r.Method == http.MethodOptions {
		if allowed := s.allowed(r); len(allowed) > 0 {
			start := time.Now()
			w.Header().Set("Allow", strings.Join(allowed, ", "))
			if s.cors != nil {
				s.cors.preflight(w.Header(), r, allowed)
			}
			w.WriteHeader(http.StatusNoContent)
			s.options.observe(http.StatusNoContent, time.Since(start))
			return
		}
	} else if s.cors != nil {
		s.cors.actual(w.Header(), r)
	}
	if s.cache != nil && (r.Method == http.MethodGet || r.Method == http.MethodHead) && !wantsCSV(r.Header.Get("Accept")) && s.serveCached(w, r) {
		return
	}
	s.mux.ServeHTTP(w, r)
}

// candidateMethods are the methods a 405's Allow header may list (OPTIONS is added: every
// known path answers it).
var candidateMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// allowed lists the methods some route serves at r's path; empty when the path is unknown.
func (s *server) allowed(r *http.Request) []string {
	var out []string
	probe := *r
	for _, m := range candidateMethods {
		probe.Method = m
		if _, pattern := s.mux.Handler(&probe); pattern != "/" && pattern != "" {
			out = append(out, m)
		}
	}
	if len(out) > 0 {
		out = append(out, http.MethodOptions)
	}
	return out
}

// unmatched answers what no route serves: a known path with the wrong method is a 405 with
// Allow, anything else the API's 404.
func (s *server) unmatched(w http.ResponseWriter, r *http.Request) {
	rt := Route{Pattern: unmatched, NoStore: true, Handler: func(r *http.Request) (any, error) { return nil, s.opts.NotFound(r) }}
	if allowed := s.allowed(r); len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		// The message names the methods that do the work; Allow lists HEAD and OPTIONS too.
		use := slices.DeleteFunc(slices.Clone(allowed), func(m string) bool { return m == http.MethodHead || m == http.MethodOptions })
		rt.Handler = func(r *http.Request) (any, error) {
			return nil, apierr.MethodNotAllowed("%s %s: use %s", r.Method, textclip.Clip(r.URL.Path), strings.Join(use, ", "))
		}
	}
	s.wrap(rt).ServeHTTP(w, r)
}
