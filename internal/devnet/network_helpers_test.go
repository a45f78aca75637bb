package devnet

import (
	"context"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/testutil"
)

// genesis is the fixed genesis time of the tests' networks (block times, and so every
// timeout and hash, follow from it).
var genesis = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// startManual starts the default network with manual blocks and a fixed clock.
func startManual(t *testing.T, seed uint64, mod func(*Config)) *Network {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Seed, cfg.ManualBlocks, cfg.GenesisTime, cfg.Accounts = seed, true, genesis, 4
	if mod != nil {
		mod(&cfg)
	}
	n, err := Start(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	return n
}

func httpGet(t *testing.T, url string) []byte {
	t.Helper()
	_, _, b := testutil.Get(t, url)
	return b
}

func produce(t *testing.T, n *Network, count int) {
	t.Helper()
	if err := n.ProduceBlocks(context.Background(), count); err != nil {
		t.Fatal(err)
	}
}

// engineOf is a chain's engine; the chain must exist.
func engineOf(t *testing.T, n *Network, id string) *engine.Chain {
	t.Helper()
	c, ok := n.Chain(id)
	if !ok {
		t.Fatalf("no chain %s", id)
	}
	return c.eng
}
