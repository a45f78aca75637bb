package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/bench/synthnet"
	"github.com/rollgate/rollgate/internal/price"
	"github.com/rollgate/rollgate/internal/price/pricetest"
	routerapi "github.com/rollgate/rollgate/internal/router/api"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// RouteResult is the latency distribution of /v2/fungible/route over a synthetic registry.
type RouteResult struct {
	Chains, Assets int
	Requests       int
	Routed         int // requests answered 200 (the rest are NO_ROUTE 400s, also timed)
	P50, P99, Max  time.Duration
	// Priced is the same requests to a router with USD prices (internal/price) read once,
	// Refreshing to one whose refresh runs every PriceRefresh during the timing, interleaved
	// with the unpriced ones in blocks; nil when prices were not measured. Priced against
	// the unpriced is what dollar values cost an answer; Refreshing against Priced is what
	// the refresh costs it.
	Priced, Refreshing *RouteLatency
	PriceRefresh       time.Duration
}

// RouteLatency is one latency distribution.
type RouteLatency struct{ P50, P99, Max time.Duration }

func (r RouteResult) String() string {
	s := fmt.Sprintf("route: %d chains, %d assets, %d requests (%d routed): p50 %v, p99 %v, max %v",
		r.Chains, r.Assets, r.Requests, r.Routed, r.P50, r.P99, r.Max)
	if r.Priced != nil {
		s += fmt.Sprintf("; with prices: p50 %v, p99 %v, max %v; refreshing every %v: p50 %v, p99 %v, max %v", r.Priced.P50, r.Priced.P99, r.Priced.Max,
			r.PriceRefresh, r.Refreshing.P50, r.Refreshing.P99, r.Refreshing.Max)
	}
	return s
}

// benchPriceRefresh is how often the priced router's refresh runs while it is timed: far
// more often than the default (10 s), so that a cost of the refresh to answers would show.
const benchPriceRefresh = 50 * time.Millisecond

// blockSize is how many requests go to one router before the other takes its turn.
const blockSize = 500

// pricedRouter is a router whose prices come from an in-process Connect oracle quoting every
// symbol of reg, read once and, when refresh, again every benchPriceRefresh until stopped.
func pricedRouter(ctx context.Context, reg *registry.Registry, refresh bool) (http.Handler, func(), error) {
	seen := map[string]bool{}
	var pairs []pricetest.Pair
	for _, c := range reg.Chains {
		for _, a := range c.Assets {
			if a.Symbol != "" && !seen[a.Symbol] {
				seen[a.Symbol] = true
				pairs = append(pairs, pricetest.Pair{Base: a.Symbol, Quote: "USD", Price: fmt.Sprint(1000000 + len(pairs)), Decimals: 6, Height: 1, Time: time.Now()})
			}
		}
	}
	o := pricetest.Serve(pairs...)
	ps, err := price.New(price.Config{OracleREST: o.URL, Refresh: benchPriceRefresh, MaxAge: time.Hour}, func() *registry.Registry { return reg })
	if err != nil {
		o.Close()
		return nil, nil, err
	}
	if err := ps.RefreshOracle(ctx); err != nil {
		o.Close()
		return nil, nil, err
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	if refresh {
		go func() { defer close(done); ps.Run(rctx) }()
	} else {
		close(done)
	}
	h := routerapi.New(routerapi.Config{Prices: ps}, registry.NewLive(reg), nil, prometheus.NewRegistry())
	return h, func() { cancel(); <-done; o.Close() }, nil
}

func distribution(lat []time.Duration) RouteLatency {
	slices.Sort(lat)
	if len(lat) == 0 {
		return RouteLatency{}
	}
	return RouteLatency{P50: lat[len(lat)/2], P99: lat[min(len(lat)-1, len(lat)*99/100)], Max: lat[len(lat)-1]}
}

// routeLatency times `requests` in-process POST /v2/fungible/route calls (full handler: JSON
// decode, search, render, encode) between random assets of a generated registry with the
// given size. It is what `rollgate bench route` prints; it asserts nothing.
func routeLatency(ctx context.Context, chains, assets, requests int, seed uint64, prices bool) (RouteResult, error) {
	reg, err := synthnet.Registry(chains, assets, seed)
	if err != nil {
		return RouteResult{}, err
	}
	h := routerapi.New(routerapi.Config{}, registry.NewLive(reg), nil, prometheus.NewRegistry())
	type pair struct{ src, dst *registry.Asset }
	var all []*registry.Asset
	for _, c := range reg.Chains {
		all = append(all, c.Assets...)
	}
	res := RouteResult{Chains: len(reg.Chains), Assets: len(all), Requests: requests}
	rng := rand.New(rand.NewPCG(seed, seed+1))
	bodies := make([][]byte, requests)
	bySymbol := map[string][]*registry.Asset{}
	for _, a := range all {
		bySymbol[a.Symbol] = append(bySymbol[a.Symbol], a)
	}
	for i := range bodies {
		// Nine in ten requests ask for a route between two forms of the same token (the
		// useful case); the rest are arbitrary pairs, which mostly end in NO_ROUTE.
		p := pair{all[rng.IntN(len(all))], all[rng.IntN(len(all))]}
		if i%10 != 0 {
			same := bySymbol[p.src.Symbol]
			p.dst = same[rng.IntN(len(same))]
		}
		bodies[i], _ = json.Marshal(map[string]any{"amount_in": "1000000", "source_asset_chain_id": p.src.ChainID,
			"source_asset_denom": p.src.Denom, "dest_asset_chain_id": p.dst.ChainID, "dest_asset_denom": p.dst.Denom, "allow_multi_tx": true})
	}
	handlers := []http.Handler{h}
	if prices {
		for _, refresh := range []bool{false, true} {
			ph, stop, err := pricedRouter(ctx, reg, refresh)
			if err != nil {
				return res, err
			}
			defer stop()
			handlers = append(handlers, ph)
		}
		res.PriceRefresh = benchPriceRefresh
	}
	lats := make([][]time.Duration, len(handlers))
	for i, h := range handlers {
		// The first request builds the graph; it is not a routing latency.
		warm := httptest.NewRequestWithContext(ctx, http.MethodPost, "/v2/fungible/route", bytes.NewReader(bodies[0]))
		h.ServeHTTP(httptest.NewRecorder(), warm)
		lats[i] = make([]time.Duration, 0, requests)
	}
	// Every router answers every body; they take turns in blocks, so a change of the
	// machine's load falls on both.
	for start := 0; start < len(bodies); start += blockSize {
		for k := range handlers {
			// Each takes the first turn in every other block: what one leaves behind (garbage
			// to collect) falls on both alike.
			i := (k + start/blockSize) % len(handlers)
			h := handlers[i]
			for _, b := range bodies[start:min(start+blockSize, len(bodies))] {
				if err := ctx.Err(); err != nil {
					return res, err
				}
				req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/v2/fungible/route", bytes.NewReader(b))
				rec := httptest.NewRecorder()
				t0 := time.Now()
				h.ServeHTTP(rec, req)
				lats[i] = append(lats[i], time.Since(t0))
				if i == 0 && rec.Code == http.StatusOK {
					res.Routed++
				}
			}
		}
	}
	d := distribution(lats[0])
	res.P50, res.P99, res.Max = d.P50, d.P99, d.Max
	if prices {
		p, r := distribution(lats[1]), distribution(lats[2])
		res.Priced, res.Refreshing = &p, &r
	}
	return res, nil
}
