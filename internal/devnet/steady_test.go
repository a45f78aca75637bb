package devnet_test

import (
	"testing"

	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/evm"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/move"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/wasm"
)

// TestTrafficSteadyState: a devnet left running reaches a steady state. The traffic
// generators cap what they create (collections, NFTs, denoms), so each VM's store stops
// growing once the caps are reached. Without the caps every store grew with the mints
// (blocks 3000 → 4000: Move 4268 → 5589 keys, EVM 1128 → 1469, Wasm 1984 → 2669) and the
// run took 102 s instead of 18, the generators reading ever more state each block.
func TestTrafficSteadyState(t *testing.T) {
	if testing.Short() {
		t.Skip("produces thousands of blocks")
	}
	specs := []devnet.ChainSpec{
		{ChainID: "move-steady-1", Kind: devnet.KindMove},
		{ChainID: "evm-steady-1", Kind: devnet.KindEVM},
		{ChainID: "wasm-steady-1", Kind: devnet.KindWasm},
	}
	stores := map[string]string{"move-steady-1": move.StoreName, "evm-steady-1": evm.StoreName, "wasm-steady-1": wasm.StoreName}
	cfg := standalone()
	cfg.Chains, cfg.Seed, cfg.GenesisTime, cfg.ManualBlocks, cfg.RetainBlocks = specs, 7, genesis, true, 50
	n, err := devnet.Start(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	keys := func(id string) int {
		ch, _ := n.Chain(id)
		q, err := ch.Engine().Query(ch.Engine().Height())
		if err != nil {
			t.Fatal(err)
		}
		k := 0
		q.Store(stores[id]).Iterate("", func(string, []byte) bool { k++; return true })
		return k
	}
	const blocks, checkpoint = 4000, 3000
	at := map[string]int{}
	for i := 1; i <= blocks; i++ {
		if err := n.ProduceBlock(t.Context()); err != nil {
			t.Fatal(err)
		}
		if i%500 == 0 {
			for _, s := range specs {
				t.Logf("block %d %s: %d keys", i, s.ChainID, keys(s.ChainID))
			}
		}
		if i == checkpoint {
			for _, s := range specs {
				at[s.ChainID] = keys(s.ChainID)
			}
		}
	}
	for _, s := range specs {
		// At the steady state creations and burns balance: the store moves by a few
		// records around its level, not by the hundreds the last 1000 blocks would mint.
		if k := keys(s.ChainID); k > at[s.ChainID]+at[s.ChainID]/20 {
			t.Errorf("%s: %d keys at block %d, %d at block %d: still growing", s.ChainID, at[s.ChainID], checkpoint, k, blocks)
		}
	}
}
