package api

import (
	"context"
	"os"
	"testing"
)

// TestBenchRouteLarge prints p50/p99 over a 100-chain / 2,000-asset registry. On demand only
// (ROLLGATE_BENCH=1): it is a measurement, not a check.
func TestBenchRouteLarge(t *testing.T) {
	if os.Getenv("ROLLGATE_BENCH") == "" {
		t.Skip("set ROLLGATE_BENCH=1 to run")
	}
	res, err := BenchRoute(context.Background(), 100, 2000, 2000, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res)
}
