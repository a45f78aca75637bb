package bridge_test

import (
	"log/slog"
	"math/big"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/server"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/evm"
)

// engineNet is the bridge tests' network: devnet engine chains (the EVM module on minievm,
// the engine's plain bank and bank traffic elsewhere) with the modules and genesis accounts
// a test wires in, each served over CometBFT RPC and Cosmos REST as the devnet serves it,
// blocks stepped by hand. It stands below internal/devnet, which wires the bridges itself.
type engineNet struct{ chains []*engineChain }

type engineChain struct {
	Spec      chainSpec
	Chain     *engine.Chain
	Endpoints struct{ RPC, REST string }
}

type chainSpec struct {
	ChainID string
	Kind    engine.Kind
}

// defaultChains are the L1 and one rollup of each VM.
var defaultChains = []chainSpec{
	{"initia-devnet-1", engine.KindL1},
	{"minievm-devnet-1", engine.KindEVM},
	{"minimove-devnet-1", engine.KindMove},
	{"miniwasm-devnet-1", engine.KindWasm},
}

// startEngineNet builds and serves the chains; wire gives a chain's extra modules and its
// extra genesis accounts (by the chain's fee denom).
func startEngineNet(t testing.TB, seed uint64, accounts int, specs []chainSpec,
	wire func(chainID, feeDenom string) ([]sim.Module, []engine.GenesisAccount)) *engineNet {
	t.Helper()
	n := &engineNet{}
	log := slog.New(slog.DiscardHandler)
	for _, s := range specs {
		cc := engine.Config{ChainID: s.ChainID, Kind: s.Kind, Seed: seed, NumAccounts: accounts,
			GenesisTime: time.Now().UTC().Truncate(time.Second), Logger: log}
		fee, amt := "umin", big.NewInt(1_000_000_000_000_000)
		switch s.Kind {
		case engine.KindEVM:
			fee, amt = "GAS", new(big.Int).Exp(big.NewInt(10), big.NewInt(24), nil)
			m := evm.New(evm.Config{FeeDenom: fee, GenesisDenoms: []string{"uusdc"}})
			cc.Modules, cc.Bank, cc.Signer, cc.Verifier = []sim.Module{m}, evm.Flavor{}, m.Signer(), m.Verifier()
		case engine.KindL1:
			fee = "uinit"
		}
		if s.Kind != engine.KindEVM {
			cc.Modules = []sim.Module{engine.BankTraffic{Denoms: []string{fee, "uusdc"}}}
		}
		cc.FeeDenom = fee
		cc.AccountCoins = []engine.Coin{{Denom: fee, Amount: amt}, {Denom: "uusdc", Amount: big.NewInt(1_000_000_000_000)}}
		mods, accs := wire(s.ChainID, fee)
		cc.Modules = append(cc.Modules, mods...)
		cc.ExtraAccounts = accs
		c, err := engine.New(cc)
		if err != nil {
			t.Fatal(err)
		}
		ec := &engineChain{Spec: s, Chain: c}
		rpc := httptest.NewServer(server.NewComet(c, log))
		rest := httptest.NewServer(server.NewREST(c, cc.Modules, log))
		t.Cleanup(rpc.Close)
		t.Cleanup(rest.Close)
		ec.Endpoints.RPC, ec.Endpoints.REST = rpc.URL, rest.URL
		n.chains = append(n.chains, ec)
	}
	return n
}

func (n *engineNet) Chains() []*engineChain { return n.chains }

func (n *engineNet) Chain(id string) (*engineChain, bool) {
	for _, c := range n.chains {
		if c.Spec.ChainID == id {
			return c, true
		}
	}
	return nil, false
}

// ProduceBlock steps every chain by one block.
func (n *engineNet) ProduceBlock() error {
	for _, c := range n.chains {
		if _, err := c.Chain.ProduceBlock(); err != nil {
			return err
		}
	}
	return nil
}
