package httpapi

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics is the one metrics set of both APIs; only the name prefix differs.
type metrics struct {
	requests    *prometheus.CounterVec   // by route pattern and HTTP status code
	duration    *prometheus.HistogramVec // by route pattern
	panics      prometheus.Counter
	disconnects *prometheus.CounterVec // by route pattern
	// Response cache lookups by result, resolved once: a hit is the hottest path there is.
	cacheHit, cacheMiss prometheus.Counter
}

func newMetrics(reg prometheus.Registerer, ns string) *metrics {
	lookups := register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: ns + "_cache_lookups_total",
		Help: "Response cache lookups by result (hit, miss).",
	}, []string{"result"}))
	return &metrics{
		cacheHit:  lookups.WithLabelValues("hit"),
		cacheMiss: lookups.WithLabelValues("miss"),
		requests: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: ns + "_requests_total",
			Help: "API requests by route pattern and HTTP status code (499: the client went away).",
		}, []string{"route", "code"})),
		duration: register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    ns + "_request_duration_seconds",
			Help:    "API request latency by route pattern, in seconds.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route"})),
		panics: register(reg, prometheus.NewCounter(prometheus.CounterOpts{
			Name: ns + "_panics_total",
			Help: "Handler panics recovered by the API (each answered with a 500).",
		})),
		disconnects: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: ns + "_client_disconnects_total",
			Help: "Requests whose client went away before the answer, by route pattern (not server errors).",
		}, []string{"route"})),
	}
}

// routeMetrics are one route's collectors, resolved once: WithLabelValues hashes the labels
// (and the status needs formatting) on every call, which was a visible part of a cache hit.
type routeMetrics struct {
	m        *metrics
	route    string
	duration prometheus.Observer
	mu       sync.Mutex                                 // serialises adding a status
	codes    atomic.Pointer[map[int]prometheus.Counter] // copy on write: read without a lock
}

func (m *metrics) forRoute(route string) *routeMetrics {
	rm := &routeMetrics{m: m, route: route, duration: m.duration.WithLabelValues(route)}
	rm.codes.Store(&map[int]prometheus.Counter{})
	return rm
}

func (rm *routeMetrics) observe(status int, d time.Duration) {
	rm.count(status)
	rm.duration.Observe(d.Seconds())
}

// count counts one answer by status.
func (rm *routeMetrics) count(status int) {
	c, ok := (*rm.codes.Load())[status]
	if !ok {
		rm.mu.Lock()
		old := *rm.codes.Load()
		if c, ok = old[status]; !ok {
			c = rm.m.requests.WithLabelValues(rm.route, strconv.Itoa(status))
			next := maps.Clone(old)
			next[status] = c
			rm.codes.Store(&next)
		}
		rm.mu.Unlock()
	}
	c.Inc()
}

// register adds c to reg, or returns the collector already registered under the same name:
// a second API built on one registry shares the metrics instead of panicking.
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

// metricsHandler serves opts.Registry, or opts.Gatherer when set. A gatherer of many
// registries can fail in one of them (say, a chain whose collector errs): the scrape then
// keeps everything else instead of a bare 500, and the error is logged and counted
// (promhttp_metric_handler_errors_total).
func metricsHandler(opts Options) http.Handler {
	if opts.Gatherer == nil {
		return promhttp.HandlerFor(opts.Registry, promhttp.HandlerOpts{Registry: opts.Registry})
	}
	return promhttp.HandlerFor(opts.Gatherer, promhttp.HandlerOpts{Registry: opts.Registry,
		ErrorHandling: promhttp.ContinueOnError, ErrorLog: slogPrinter{opts.Log}})
}

// slogPrinter is promhttp's error log on a slog.Logger.
type slogPrinter struct{ log *slog.Logger }

func (p slogPrinter) Println(v ...any) {
	p.log.Warn("metrics gathered with errors", "err", strings.TrimSpace(fmt.Sprintln(v...)))
}
