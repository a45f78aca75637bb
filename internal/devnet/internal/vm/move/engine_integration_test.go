package move

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
	mod := New(WithGenesisCoins("uusdc"))
	e12 := big.NewInt(1_000_000_000_000)
	c, err := engine.New(engine.Config{ChainID: "devnet-move-1", Kind: engine.KindMove, Seed: 42, NumAccounts: 5,
		AccountCoins: []sim.Coin{{Denom: "umin", Amount: e12}, {Denom: "uusdc", Amount: e12}},
		Modules:      []sim.Module{mod}, Bank: mod.BankFlavor()})
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	genesisStores := map[string]bool{}
	for _, a := range c.Accounts() {
		for _, d := range []string{"umin", "uusdc"} {
			genesisStores[PrimaryStore(AccAddr(a.Addr), CoinMetadata(d)).String()] = true
		}
	}
	created := map[string]bool{}
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
				if e.Type == EventType {
					types[e.Attributes[0].Value]++
				}
				if e.Type == EventType && e.Attributes[0].Value == tagPrimaryStore {
					for _, a := range e.Attributes {
						if a.Key == "store_addr" {
							if genesisStores[a.Value] || created[a.Value] {
								t.Errorf("store %s created although it exists", a.Value)
							}
							created[a.Value] = true
						}
					}
				}
			}
		}
	}
	t.Logf("failures %v", fails)
	t.Logf("move events %v", types)
	for f := range fails {
		if !strings.HasSuffix(f, abort("fungible_asset", codeInsufficientBalance).Error()) && !strings.HasSuffix(f, abort("object", codeNotObjectOwner).Error()) {
			t.Errorf("unintended failure %q", f)
		}
	}
	for _, tag := range []string{tagCreateCollection, tagCollectionMint, tagCollectionBurn, tagObjectTransfer, tagNftMutation, tagCoinCreated, tagFAMint, tagDeposit, tagWithdraw} {
		if types[tag] == 0 {
			t.Errorf("no %s", tag)
		}
	}
}
