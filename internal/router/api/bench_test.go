package api

import (
	"context"
	"testing"
)

// TestBenchRouteSmall runs the bench helper on a small network: it must route most random
// pairs and report a distribution (no timing assertion).
func TestBenchRouteSmall(t *testing.T) {
	res, err := BenchRoute(context.Background(), 12, 150, 200, 7)
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
