package evm

import (
	"math/big"
	"testing"

	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// newEVMChain builds an EVM chain the way the devnet wires one.
func newEVMChain(t testing.TB, seed uint64) (*engine.Chain, *Module) {
	t.Helper()
	m := New(Config{GenesisDenoms: []string{"uusdc"}})
	gas, _ := new(big.Int).SetString("1000000000000000000000000", 10)
	c, err := engine.New(engine.Config{
		ChainID: "minievm-test-1", Kind: engine.KindEVM, Seed: seed,
		AccountCoins: []engine.Coin{{Denom: "GAS", Amount: gas}, {Denom: "uusdc", Amount: big.NewInt(1_000_000_000_000)}},
		Modules:      []sim.Module{m}, Bank: Flavor{}, Signer: m.Signer(), Verifier: m.Verifier(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, m
}

func TestTrafficSmoke(t *testing.T) {
	c, _ := newEVMChain(t, 7)
	codes := map[uint32]int{}
	kinds := map[string]int{}
	for i := 0; i < 40; i++ {
		b, err := c.ProduceBlock()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range b.Results {
			codes[r.Code]++
			if r.Code != 0 && r.Code != 23 {
				t.Logf("h%d code %d %s", b.Height, r.Code, r.Log)
			}
			for _, e := range r.Events {
				kinds[e.Type]++
			}
		}
	}
	t.Logf("codes %v kinds %v", codes, kinds)
	if codes[0] == 0 {
		t.Fatal("no successful tx")
	}
}
