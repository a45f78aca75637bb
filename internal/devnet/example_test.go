package devnet_test

import (
	"context"
	"fmt"
	"time"

	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/devnet/engine"
	"github.com/rollgate/rollgate/internal/devnet/sim"
)

// Example starts a two-chain network with blocks stepped by hand, plugs an extra module on
// the L1 (none here), and reads the endpoints.
func Example() {
	cfg := devnet.DefaultConfig()
	cfg.Chains = []devnet.ChainSpec{
		{ChainID: "initia-devnet-1", Kind: engine.KindL1},
		{ChainID: "minievm-devnet-1", Kind: engine.KindEVM},
	}
	cfg.Seed = 7
	cfg.GenesisTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cfg.ManualBlocks = true // tests step blocks; leave false for a timer (cfg.BlockInterval)
	cfg.Plugins = func(spec devnet.ChainSpec) devnet.Plugins {
		var mods []sim.Module // e.g. move.New(...), bridge modules
		return devnet.Plugins{Modules: mods}
	}
	net, err := devnet.Start(context.Background(), cfg, nil)
	if err != nil {
		panic(err)
	}
	defer net.Close()
	if err := net.ProduceBlocks(3); err != nil {
		panic(err)
	}
	for _, c := range net.Chains() {
		e := net.Endpoints()[c.Spec.ChainID]
		fmt.Println(c.Spec.ChainID, e.Kind, c.Chain.Height(), e.JSONRPC != "")
	}
	// Output:
	// initia-devnet-1 l1 4 false
	// minievm-devnet-1 evm 4 true
}
