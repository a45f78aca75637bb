package wasm

import (
	"math/big"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// TestOnEngine runs the module's traffic on the real devnet engine: only deliberate
// failures, and the events an indexer reads are there.
func TestOnEngine(t *testing.T) {
	mod := New()
	e12 := big.NewInt(1_000_000_000_000)
	c, err := engine.New(engine.Config{ChainID: "devnet-wasm-1", Kind: engine.KindWasm, Seed: 42, NumAccounts: 5,
		AccountCoins: []sim.Coin{{Denom: "umin", Amount: e12}, {Denom: "uusdc", Amount: e12}},
		Modules:      []sim.Module{mod}, Bank: BankFlavor{}})
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	fails := map[string]int{}
	for range 120 {
		b, err := c.ProduceBlock()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range b.Results {
			if r.Code != 0 {
				fails[r.Codespace+" "+r.Log]++
			}
			for _, e := range r.Events {
				if e.Type == "tf_mint" || e.Type == "tf_burn" || e.Type == "create_denom" || e.Type == "store_code" {
					types[e.Type]++
				}
				if e.Type == EventType {
					for _, a := range e.Attributes {
						if a.Key == "action" {
							types[a.Value]++
						}
					}
				}
			}
		}
	}
	t.Logf("failures %v", fails)
	t.Logf("events %v", types)
	for f := range fails {
		switch {
		case strings.HasSuffix(f, "Caller is not minter: execute wasm contract failed"),
			strings.HasSuffix(f, "Caller is not the contract's current owner: execute wasm contract failed"),
			strings.HasSuffix(f, "token_id already claimed: execute wasm contract failed"):
		default:
			t.Errorf("unintended failure %q", f)
		}
	}
	for _, k := range []string{"store_code", "create_denom", "tf_mint", "mint", "transfer_nft", "send_nft", "stub_execute", "update_nft_info", "burn", "approve"} {
		if types[k] == 0 {
			t.Errorf("no %s", k)
		}
	}
}
