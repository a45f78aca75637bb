// Package faults injects failures into HTTP servers so clients' retry, timeout and
// decoding paths get exercised: a seeded share of requests answers 500, hangs, has its
// connection closed, or gets truncated JSON.
package faults

import (
	"bytes"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"
)

// Kind is one kind of fault.
type Kind string

// Fault kinds.
const (
	Error500 Kind = "500"
	Hang     Kind = "hang"
	Close    Kind = "close"
	Truncate Kind = "truncate"
)

// AllKinds lists every fault kind.
var AllKinds = []Kind{Error500, Hang, Close, Truncate}

// Config configures an Injector.
type Config struct {
	Rate  float64       // share of requests that fail, 0..1
	Seed  uint64        // seeds which requests fail and how
	Kinds []Kind        // default: all
	Hang  time.Duration // how long a hang lasts at most (bounded; ends early with the request's context), default 30s
}

// Injector is the fault middleware; safe for concurrent use and adjustable at run time.
type Injector struct {
	mu      sync.Mutex
	rng     *rand.Rand
	rate    float64
	kinds   []Kind
	hang    time.Duration
	enabled atomic.Bool
	counts  map[Kind]*atomic.Int64
	passed  atomic.Int64
}

// New returns an Injector, enabled when cfg.Rate > 0.
func New(cfg Config) *Injector {
	if len(cfg.Kinds) == 0 {
		cfg.Kinds = AllKinds
	}
	if cfg.Hang <= 0 {
		cfg.Hang = 30 * time.Second
	}
	i := &Injector{rng: rand.New(rand.NewPCG(cfg.Seed, 0x6661756c7473)), rate: cfg.Rate, kinds: cfg.Kinds, hang: cfg.Hang, counts: map[Kind]*atomic.Int64{}}
	for _, k := range AllKinds {
		i.counts[k] = new(atomic.Int64)
	}
	i.enabled.Store(cfg.Rate > 0)
	return i
}

// SetEnabled turns injection on or off (the test hook).
func (i *Injector) SetEnabled(on bool) { i.enabled.Store(on) }

// SetRate changes the failing share.
func (i *Injector) SetRate(rate float64) {
	i.mu.Lock()
	i.rate = rate
	i.mu.Unlock()
}

// SetKinds restricts the fault kinds.
func (i *Injector) SetKinds(kinds ...Kind) {
	i.mu.Lock()
	if len(kinds) == 0 {
		kinds = AllKinds
	}
	i.kinds = kinds
	i.mu.Unlock()
}

// Counts reports how many faults of each kind were injected, and how many requests passed.
func (i *Injector) Counts() (map[Kind]int64, int64) {
	out := map[Kind]int64{}
	for k, c := range i.counts {
		out[k] = c.Load()
	}
	return out, i.passed.Load()
}

func (i *Injector) pick() (Kind, bool) {
	if !i.enabled.Load() {
		return "", false
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.rng.Float64() >= i.rate {
		return "", false
	}
	return i.kinds[i.rng.IntN(len(i.kinds))], true
}

// Wrap returns h with fault injection in front.
func (i *Injector) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k, fail := i.pick()
		if !fail {
			i.passed.Add(1)
			h.ServeHTTP(w, r)
			return
		}
		i.counts[k].Add(1)
		switch k {
		case Error500:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"code":13, "message":"injected fault: internal error", "details":[]}`))
		case Hang:
			// The body is read first: until it is, net/http does not watch the connection, so
			// a hung POST (a JSON-RPC call) would outlive the client that gave up on it.
			_, _ = io.Copy(io.Discard, r.Body)
			t := time.NewTimer(i.hang)
			defer t.Stop()
			select {
			case <-r.Context().Done():
			case <-t.C:
			}
			w.WriteHeader(http.StatusGatewayTimeout)
		case Close:
			hj, ok := w.(http.Hijacker)
			if !ok {
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
			conn, _, err := hj.Hijack()
			if err == nil {
				_ = conn.Close()
			}
		case Truncate:
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			body := rec.Body.Bytes()
			cut := len(body) / 2
			if cut == 0 && len(body) > 0 {
				cut = 1
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.Header().Del("Content-Length")
			w.WriteHeader(rec.Code)
			_, _ = w.Write(bytes.Clone(body[:cut]))
		}
	})
}
