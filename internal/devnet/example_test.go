package devnet_test

import (
	"context"
	"fmt"
	"time"

	"github.com/rollgate/rollgate/internal/devnet"
)

// Example_standalone starts two chains without bridges, blocks stepped by hand, and reads
// the endpoints. Each chain runs the VM of its kind (Move on the L1, minievm on evm).
func Example_standalone() {
	cfg := devnet.Config{
		Chains: []devnet.ChainSpec{
			{ChainID: "initia-devnet-1", Kind: devnet.KindL1},
			{ChainID: "minievm-devnet-1", Kind: devnet.KindEVM},
		},
		Seed:         7,
		GenesisTime:  time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		ManualBlocks: true, // tests step blocks; leave false for a timer (cfg.BlockInterval)
	}
	ctx := context.Background()
	net, err := devnet.Start(ctx, cfg, nil)
	if err != nil {
		panic(err)
	}
	defer net.Close()
	if err := net.ProduceBlocks(ctx, 3); err != nil {
		panic(err)
	}
	for _, c := range net.Chains() {
		e := net.Endpoints()[c.Spec.ChainID]
		fmt.Println(c.Spec.ChainID, e.Kind, c.Engine().Height(), e.JSONRPC != "")
	}
	// Output:
	// initia-devnet-1 l1 4 false
	// minievm-devnet-1 evm 4 true
}
