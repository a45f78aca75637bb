package localnet

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"
)

// TestDeterminism: two networks with the same seed and genesis time, driven block by block,
// serve byte-identical /block and /block_results on every chain, bridge traffic and relayer
// included; a different seed does not.
func TestDeterminism(t *testing.T) {
	const blocks = 30
	busy := func(c *Config) { c.BridgeTraffic = 0.5 }
	a, b := startManual(t, 11, busy), startManual(t, 11, busy)
	other := startManual(t, 12, busy)
	for _, n := range []*Network{a, b, other} {
		produce(t, n, blocks)
	}
	if p, q := a.Relayer().Stats(), b.Relayer().Stats(); p != q || p.RecvSubmitted == 0 || p.DepositsSubmitted == 0 {
		t.Errorf("relayer stats %+v vs %+v (want equal and non-zero)", p, q)
	}
	differs := 0
	for _, id := range a.ChainIDs() {
		ea, eb, eo := a.Endpoints()[id], b.Endpoints()[id], other.Endpoints()[id]
		for h := 1; h <= blocks+1; h++ {
			for _, route := range []string{"block", "block_results"} {
				q := fmt.Sprintf("/%s?height=%d", route, h)
				x, y := httpGet(t, ea.RPC+q), httpGet(t, eb.RPC+q)
				if !bytes.Equal(x, y) {
					t.Fatalf("%s %s differs:\n%.400s\n%.400s", id, q, x, y)
				}
				if !bytes.Contains(x, []byte(`"result"`)) {
					t.Fatalf("%s %s: %.300s", id, q, x)
				}
				if !bytes.Equal(x, httpGet(t, eo.RPC+q)) {
					differs++
				}
			}
		}
	}
	if differs == 0 {
		t.Error("another seed served the same blocks")
	}
}

// TestTimerMode: without ManualBlocks the chains produce on their timers and the relayer
// steps on its own goroutine; bridge traffic gets acknowledged without any driving.
func TestTimerMode(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Accounts, cfg.BlockInterval, cfg.BridgeTraffic = 5, 3, 40*time.Millisecond, 1
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n, err := Start(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if err := n.ProduceBlock(ctx); err == nil {
		t.Error("ProduceBlock accepted without ManualBlocks")
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if st := n.RelayerStats(); st.AcksSubmitted > 0 && st.DepositsSubmitted > 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("nothing relayed: %+v", n.RelayerStats())
}
