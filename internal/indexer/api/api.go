// Package api is the indexer's read-only HTTP API, wire-compatible with rollytics (see
// shared/spec/indexer-api.md for where it deliberately differs). Every route is one entry in
// routes.go; every handler has the signature handlerFunc and returns a body or an error, and
// one writer turns either into the response, so status codes, error bodies (internal/apierr),
// cache headers and metrics are decided in one place.
package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/store"
)

// Config is what the API needs to know about the deployment.
type Config struct {
	ChainID       string // reported by /status
	VMType        string // "evm", "move" or "wasm"; informational for now (EVM routes are a later issue)
	AccountPrefix string // bech32 prefix of account addresses; default "init"
	Version       string // reported by /status; default "dev"
	CommitHash    string // reported by /status; default "unknown"
	// PinnedMaxAge is the Cache-Control max-age of answers that can no longer change (a block
	// or tx by height/hash that exists); default 60 s.
	PinnedMaxAge time.Duration
	// ListMaxAge is the max-age of everything else that succeeded; default 1 s.
	ListMaxAge time.Duration
	// RequestTimeout bounds the store work of one request; default 10 s. Exceeding it is a 504.
	RequestTimeout time.Duration
}

func (c *Config) defaults() {
	if c.AccountPrefix == "" {
		c.AccountPrefix = "init"
	}
	if c.Version == "" {
		c.Version = "dev"
	}
	if c.CommitHash == "" {
		c.CommitHash = "unknown"
	}
	if c.PinnedMaxAge == 0 {
		c.PinnedMaxAge = 60 * time.Second
	}
	if c.ListMaxAge == 0 {
		c.ListMaxAge = time.Second
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = 10 * time.Second
	}
}

// handlerFunc is the one handler signature. The body is JSON-encoded, except rawJSON which
// is written as is; pinned marks a body that will never change.
type handlerFunc func(r *http.Request) (any, error)

// rawJSON is a body the handler already encoded (tx lists: the stored tx JSON is spliced in
// verbatim rather than re-encoded).
type rawJSON []byte

// pinned wraps a body whose content is fixed for good, so it may be cached longer.
type pinned struct{ v any }

type server struct {
	cfg    Config
	store  store.Reader
	log    *slog.Logger
	mux    *http.ServeMux
	reqs   *prometheus.CounterVec
	dur    *prometheus.HistogramVec
	panics prometheus.Counter
}

// New returns the API handler. reg receives the API's metrics and is served at /metrics; nil
// means a private registry.
func New(cfg Config, reader store.Reader, logger *slog.Logger, reg *prometheus.Registry) http.Handler {
	cfg.defaults()
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	s := &server{cfg: cfg, store: reader, log: logger, mux: http.NewServeMux()}
	s.reqs = register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "rollgate_indexer_api_requests_total",
		Help: "Indexer API requests by route pattern and HTTP status code.",
	}, []string{"route", "code"}))
	s.dur = register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "rollgate_indexer_api_request_duration_seconds",
		Help:    "Indexer API request latency by route pattern, in seconds.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"route"}))
	s.panics = register(reg, prometheus.NewCounter(prometheus.CounterOpts{
		Name: "rollgate_indexer_api_panics_total",
		Help: "Handler panics recovered by the indexer API (each answered with a 500).",
	}))
	for _, rt := range s.routes() {
		s.mux.Handle(rt.pattern, s.wrap(rt))
	}
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	s.mux.Handle("GET /swagger/", swaggerUI) // /swagger/doc.json above is more specific
	s.mux.Handle("GET /swagger", swaggerUI)
	s.mux.Handle("/", s.wrap(route{pattern: "unmatched", h: func(r *http.Request) (any, error) {
		return nil, apierr.NotFoundf("Cannot %s %s", r.Method, clip(r.URL.Path))
	}}))
	return s
}

// register adds c to reg, or returns the collector already registered under the same name
// (a second New on one registry shares the metrics).
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
	}
	return c
}

// ServeHTTP tolerates a trailing slash by dropping it before routing.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Trailing slashes are tolerated by trimming them, except Swagger UI's own page, whose
	// relative asset URLs need it.
	if p := r.URL.Path; len(p) > 1 && strings.HasSuffix(p, "/") && p != "/swagger/" {
		r2 := r.Clone(r.Context())
		r2.URL.Path = strings.TrimRight(p, "/")
		r2.URL.RawPath = strings.TrimRight(r.URL.RawPath, "/")
		if r2.URL.Path == "" {
			r2.URL.Path = "/"
		}
		r = r2
	}
	s.mux.ServeHTTP(w, r)
}

func (s *server) wrap(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		status := s.serve(w, r, rt)
		s.reqs.WithLabelValues(rt.pattern, strconv.Itoa(status)).Inc()
		s.dur.WithLabelValues(rt.pattern).Observe(time.Since(start).Seconds())
	})
}

// serve runs the handler and writes its answer; it returns the status written.
func (s *server) serve(w http.ResponseWriter, r *http.Request, rt route) (status int) {
	defer func() {
		if p := recover(); p != nil {
			s.panics.Inc()
			status = s.writeErr(w, r, fmt.Errorf("panic in %s: %v", rt.pattern, p))
		}
	}()
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
	defer cancel()
	r = r.WithContext(ctx)
	v, err := rt.h(r)
	if err != nil {
		return s.writeErr(w, r, err)
	}
	maxAge := s.cfg.ListMaxAge
	if p, ok := v.(pinned); ok {
		v, maxAge = p.v, s.cfg.PinnedMaxAge
	}
	var body []byte
	switch b := v.(type) {
	case rawJSON:
		body = b
	case []byte: // pre-rendered non-JSON bodies (the Swagger UI page)
		body = b
	default:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return s.writeErr(w, r, fmt.Errorf("encode %s: %w", rt.pattern, err))
		}
		body = buf.Bytes()
	}
	h := w.Header()
	if rt.contentType != "" {
		h.Set("Content-Type", rt.contentType)
	} else {
		h.Set("Content-Type", "application/json")
	}
	if rt.noCache {
		h.Set("Cache-Control", "no-store")
	} else {
		h.Set("Cache-Control", fmt.Sprintf("public, max-age=%d", int(maxAge.Seconds())))
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
	return http.StatusOK
}

func (s *server) writeErr(w http.ResponseWriter, r *http.Request, err error) int {
	if errors.Is(err, store.ErrNotFound) {
		// A handler that forgot to map it: still a 404, never a 500.
		err = apierr.NotFoundf("not found")
	}
	w.Header().Set("Cache-Control", "no-store")
	apierr.Write(w, r, s.log, err)
	return apierr.From(err).Code.HTTPStatus()
}

// clip keeps echoed input short: error messages quote what the client sent, and a 10 kB path
// segment should not come back as a 10 kB message.
func clip(s string) string {
	const max = 128
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
