package bench

import (
	"context"
	"testing"
)

// TestRouteLatencySmall runs the route timer on a small network: it must route most random
// pairs and report a distribution (no timing assertion).
func TestRouteLatencySmall(t *testing.T) {
	res, err := routeLatency(context.Background(), 12, 150, 200, 7, true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Chains != 12 || res.Assets < 150 || res.Requests != 200 {
		t.Errorf("result %+v", res)
	}
	if res.Routed < res.Requests/2 || res.P50 <= 0 || res.P99 < res.P50 || res.Max < res.P99 {
		t.Errorf("result %v", res)
	}
	for _, p := range []*RouteLatency{res.Priced, res.Refreshing} {
		if p == nil || p.P50 <= 0 || p.P99 < p.P50 || p.Max < p.P99 {
			t.Errorf("priced result %v", res)
		}
	}
	t.Log(res)
}

// BenchmarkRouteLatencyLarge prints p50/p99 over a 100-chain / 2,000-asset registry: a
// measurement, not a check, so it runs on demand only, as a benchmark:
// go test ./internal/bench -run '^$' -bench RouteLatencyLarge -benchtime 1x -v
func BenchmarkRouteLatencyLarge(b *testing.B) {
	for range b.N {
		res, err := routeLatency(context.Background(), 100, 2000, 2000, 1, true)
		if err != nil {
			b.Fatal(err)
		}
		b.Log(res)
	}
}
