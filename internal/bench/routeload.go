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
	routerapi "github.com/rollgate/rollgate/internal/router/api"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// RouteResult is the latency distribution of /v2/fungible/route over a synthetic registry.
type RouteResult struct {
	Chains, Assets int
	Requests       int
	Routed         int // requests answered 200 (the rest are NO_ROUTE 400s, also timed)
	P50, P99, Max  time.Duration
}

func (r RouteResult) String() string {
	return fmt.Sprintf("route: %d chains, %d assets, %d requests (%d routed): p50 %v, p99 %v, max %v",
		r.Chains, r.Assets, r.Requests, r.Routed, r.P50, r.P99, r.Max)
}

// routeLatency times `requests` in-process POST /v2/fungible/route calls (full handler: JSON
// decode, search, render, encode) between random assets of a generated registry with the
// given size. It is what `rollgate bench route` prints; it asserts nothing.
func routeLatency(ctx context.Context, chains, assets, requests int, seed uint64) (RouteResult, error) {
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
	// The first request builds the graph; it is not a routing latency.
	warm := httptest.NewRequestWithContext(ctx, http.MethodPost, "/v2/fungible/route", bytes.NewReader(bodies[0]))
	h.ServeHTTP(httptest.NewRecorder(), warm)
	lat := make([]time.Duration, 0, requests)
	for _, b := range bodies {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/v2/fungible/route", bytes.NewReader(b))
		rec := httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(rec, req)
		lat = append(lat, time.Since(start))
		if rec.Code == http.StatusOK {
			res.Routed++
		}
	}
	slices.Sort(lat)
	if len(lat) > 0 {
		res.P50 = lat[len(lat)/2]
		res.P99 = lat[min(len(lat)-1, len(lat)*99/100)]
		res.Max = lat[len(lat)-1]
	}
	return res, nil
}
