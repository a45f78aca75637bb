package bench

import (
	"context"
	"os"
	"testing"
)

// TestRouteLatencySmall runs the route timer on a small network: it must route most random
// pairs and report a distribution (no timing assertion).
func TestRouteLatencySmall(t *testing.T) {
	res, err := routeLatency(context.Background(), 12, 150, 200, 7)
	if err != nil {
		t.Fatal(err)
	}
	if res.Chains != 12 || res.Assets < 150 || res.Requests != 200 {
		t.Errorf("result %+v", res)
	}
	if res.Routed < res.Requests/2 || res.P50 <= 0 || res.P99 < res.P50 || res.Max < res.P99 {
		t.Errorf("result %v", res)
	}
	t.Log(res)
}

// TestRouteLatencyLarge prints p50/p99 over a 100-chain / 2,000-asset registry. On demand only
// (ROLLGATE_BENCH=1): it is a measurement, not a check.
func TestRouteLatencyLarge(t *testing.T) {
	if os.Getenv("ROLLGATE_BENCH") == "" {
		t.Skip("set ROLLGATE_BENCH=1 to run")
	}
	res, err := routeLatency(context.Background(), 100, 2000, 2000, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res)
}
