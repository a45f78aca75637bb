package devnet

import (
	"log/slog"
	"net/http"

	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/evm"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/move"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/wasm"
)

// vm is one VM as the network plugs it into a chain: every VM enters through this one
// shape, chosen by the chain's kind in plugVM.
type vm struct {
	// modules are the VM's state, messages, REST routes and seeded traffic.
	modules []sim.Module
	// bank renders bank movements the way the VM-backed bank does (nil: plain x/bank).
	bank sim.BankFlavor
	// signer and verifier handle the VM's own transaction format (nil: SIGN_MODE_DIRECT).
	signer   engine.CustomSigner
	verifier engine.CustomVerifier
	// fundedAtGenesis learns the accounts funded outside the VM's view (Move: their
	// primary fungible stores exist from genesis on).
	fundedAtGenesis func([]engine.GenesisAccount)
	// handlers are the servers the VM adds beside CometBFT RPC and Cosmos REST.
	handlers func(c *engine.Chain, log *slog.Logger) []http.Handler
	// evm is the EVM module (registry: evm_chain_id and ERC-20 addresses), nil elsewhere.
	evm *evm.Module
}

// plugVM is the VM of a chain kind: minievm on evm, Move on the L1 (Initia's L1 runs
// Move) and on minimove, CosmWasm on miniwasm, and the engine's plain bank with its
// built-in bank traffic on an external Cosmos chain.
func plugVM(s ChainSpec, cfg Config, extraModules []sim.Module, log *slog.Logger) vm {
	switch s.Kind {
	case KindEVM:
		m := evm.New(evm.Config{FeeDenom: s.FeeDenom, GenesisDenoms: []string{"uusdc"}, MaxTxsPerBlock: cfg.TxsPerBlock})
		return vm{modules: []sim.Module{m}, bank: evm.Flavor{}, signer: m.Signer(), verifier: m.Verifier(), evm: m,
			handlers: func(c *engine.Chain, log *slog.Logger) []http.Handler {
				return []http.Handler{evm.NewJSONRPC(c, m, log)}
			}}
	case KindL1, KindMove:
		opts := []move.Option{move.WithGenesisCoins("uusdc"), move.WithLogger(log)}
		if s.Kind == KindL1 {
			opts = append([]move.Option{move.WithBaseDenom(s.FeeDenom)}, opts...)
			// The username module InterwovenKit asks Initia's L1 for (its views answer
			// "no name" for every address until a name is registered).
			for _, at := range []move.Addr{move.UsernamesMainnet, move.UsernamesTestnet} {
				opts = append(opts, move.WithPackage(at, move.Usernames{At: at}))
			}
		}
		opts = append(opts, cfg.lzMoveOptions(s, extraModules)...)
		m := move.New(opts...)
		flavor := m.BankFlavor()
		return vm{modules: []sim.Module{m}, bank: flavor, fundedAtGenesis: func(accs []engine.GenesisAccount) {
			for _, a := range accs {
				for _, c := range a.Coins {
					flavor.NoteStore(a.Address, c.Denom)
				}
			}
		}}
	case KindWasm:
		return vm{modules: []sim.Module{wasm.New(wasm.WithLogger(log))}, bank: wasm.BankFlavor{}}
	}
	return vm{modules: []sim.Module{engine.BankTraffic{Denoms: []string{s.FeeDenom}, Max: cfg.TxsPerBlock}}}
}
