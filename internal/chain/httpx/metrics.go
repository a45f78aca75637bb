package httpx

import (
	"errors"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// PrometheusHooks returns hooks that record attempts on reg:
// <namespace>_upstream_attempts_total{upstream,outcome} and
// <namespace>_upstream_attempt_seconds{upstream}. upstream names the logical upstream
// ("comet", "rest", "jsonrpc"); outcome is the HTTP status or "error". Registering twice with the
// same names reuses the existing collectors, so several clients can share one registry.
func PrometheusHooks(reg prometheus.Registerer, namespace, upstream string) (Hooks, error) {
	attempts := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "upstream_attempts_total",
		Help: "HTTP attempts to chain upstreams by outcome (status code or error).",
	}, []string{"upstream", "outcome"})
	seconds := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Name: "upstream_attempt_seconds",
		Help:    "Duration of HTTP attempts to chain upstreams.",
		Buckets: prometheus.ExponentialBuckets(0.005, 2, 12),
	}, []string{"upstream"})
	var err error
	if attempts, err = register(reg, attempts); err != nil {
		return Hooks{}, err
	}
	if seconds, err = register(reg, seconds); err != nil {
		return Hooks{}, err
	}
	return Hooks{OnAttempt: func(a Attempt) {
		outcome := "error"
		if a.Status != 0 {
			outcome = strconv.Itoa(a.Status)
		}
		attempts.WithLabelValues(upstream, outcome).Inc()
		seconds.WithLabelValues(upstream).Observe(a.Duration.Seconds())
	}}, nil
}

func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing, nil
			}
		}
		return c, err
	}
	return c, nil
}
