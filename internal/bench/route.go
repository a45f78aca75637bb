package bench

import (
	"context"
	"fmt"
	"io"
)

// RouteConfig is what `rollgate bench route` measures.
type RouteConfig struct {
	Chains, Assets, Requests int
	Seed                     uint64
	// Prices also times a router with USD prices refreshing in the background, interleaved.
	Prices bool
}

// Route times /v2/fungible/route over a generated registry (routeLatency) and prints
// p50/p99.
func Route(ctx context.Context, cfg RouteConfig, out io.Writer) (RouteResult, error) {
	if cfg.Requests <= 0 {
		return RouteResult{}, fmt.Errorf("--requests must be positive")
	}
	res, err := routeLatency(ctx, cfg.Chains, cfg.Assets, cfg.Requests, cfg.Seed, cfg.Prices)
	if err != nil {
		return res, err
	}
	fmt.Fprintf(out, "route: registry of %d chains and %d assets (seed %d), %d requests in sequence, %d routed (the rest NO_ROUTE, also timed)\n",
		res.Chains, res.Assets, cfg.Seed, res.Requests, res.Routed)
	if res.Priced == nil {
		fmt.Fprintf(out, "p50 ms   %s\n", ms(res.P50))
		fmt.Fprintf(out, "p99 ms   %s\n", ms(res.P99))
		fmt.Fprintf(out, "max ms   %s\n", ms(res.Max))
		return res, nil
	}
	fmt.Fprintf(out, "         no prices  prices     prices refreshing every %v (interleaved in blocks of %d)\n", res.PriceRefresh, blockSize)
	fmt.Fprintf(out, "p50 ms   %-9s  %-9s  %s\n", ms(res.P50), ms(res.Priced.P50), ms(res.Refreshing.P50))
	fmt.Fprintf(out, "p99 ms   %-9s  %-9s  %s\n", ms(res.P99), ms(res.Priced.P99), ms(res.Refreshing.P99))
	fmt.Fprintf(out, "max ms   %-9s  %-9s  %s\n", ms(res.Max), ms(res.Priced.Max), ms(res.Refreshing.Max))
	return res, nil
}
