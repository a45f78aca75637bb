package devnet

import (
	"fmt"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/ibc"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/opinit"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/relayer"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/evm"
)

// bridges is the bridge side of a network: the OPinit and IBC wiring (modules and registry
// metadata per chain), the ibc-hooks runners, the relayer and executor bots, and the
// relayer/executor itself.
type bridges struct {
	wiring  *bridge.Network
	runners map[string]*bridge.HookRunner
	// bots are the relayer and executor keys: eth_secp256k1 on Initia chains, secp256k1 on
	// external ones (index 0 and 1 of the pair).
	initiaBots, cosmosBots [2]*engine.Key
	relayer                *relayer.Relayer
	execURL                map[string]string // rollup chain id → executor API URL
	nftSinks               map[string]*nftSink
	nftEscrows             map[string]*nftEscrow // the Move and EVM chains' own NFTs over ICS-721
}

// wireBridges wires the OPinit bridges L1 ↔ every rollup and the IBC channels L1 ↔ every
// other chain. The chains do not exist yet: what reads them (the L1's view of a rollup's
// withdrawals) looks them up in n when it runs.
func wireBridges(n *Network) (*bridges, error) {
	b := &bridges{runners: map[string]*bridge.HookRunner{}, execURL: map[string]string{}, nftSinks: map[string]*nftSink{}, nftEscrows: map[string]*nftEscrow{}}
	var err error
	if b.initiaBots[0], b.initiaBots[1], err = bridge.BotKeys(n.cfg.Seed, false); err != nil {
		return nil, err
	}
	if b.cosmosBots[0], b.cosmosBots[1], err = bridge.BotKeys(n.cfg.Seed, true); err != nil {
		return nil, err
	}
	var specs []bridge.ChainSpec
	ibcHooks := map[string]ibc.HookExecutor{}
	depHooks := map[string]opinit.DepositHookExecutor{}
	for _, s := range n.cfg.Chains {
		bs := bridge.ChainSpec{ChainID: s.ChainID, Kind: s.Kind, Prefix: s.Prefix, ChainName: s.name(), NativeDenoms: s.NativeDenoms}
		if isRollup(s.Kind) {
			bs.Executor = b.bech32(s, b.bots(s)[1])
		}
		specs = append(specs, bs)
		if s.Kind == KindCosmos {
			continue // an external chain runs no ibc-hooks
		}
		r := bridge.NewHookRunner(s.ChainID)
		b.runners[s.ChainID] = r
		ibcHooks[s.ChainID] = r
		if isRollup(s.Kind) {
			depHooks[s.ChainID] = r
		}
	}
	wd := opinit.ChildWithdrawals(func(id uint64) (sim.Query, error) {
		for _, cm := range b.wiring.Chains {
			if cm.BridgeID == id {
				c, ok := n.Chain(cm.Spec.ChainID)
				if !ok {
					break
				}
				return c.eng.Query(c.eng.Height())
			}
		}
		return nil, fmt.Errorf("no rollup for bridge %d", id)
	})
	opts := bridge.Options{IBCHooks: ibcHooks, DepositHooks: depHooks, Withdrawals: wd,
		FinalizationPeriod: n.cfg.FinalizationPeriod, TrafficRate: n.cfg.BridgeTraffic,
		KeepWithdrawals: n.cfg.KeepWithdrawals} // consulted only by a chain that prunes
	if n.cfg.NFTTraffic > 0 {
		nft := &bridge.NFTOptions{Rate: n.cfg.NFTTraffic, Receivers: map[string]ibc.NFTReceiver{}, Escrows: map[string]ibc.NFTEscrow{}}
		for _, s := range n.cfg.Chains {
			if s.Kind == KindL1 {
				if nft.Classes, err = l1NFTClasses(n.cfg, s); err != nil {
					return nil, err
				}
			}
			// Every Initia chain receives ICS-721 vouchers (the L1 those a rollup sends it),
			// and the Move and EVM chains send their own collections.
			if s.Kind == KindL1 || isRollup(s.Kind) {
				sink := &nftSink{chainID: s.ChainID}
				b.nftSinks[s.ChainID] = sink
				nft.Receivers[s.ChainID] = sink
			}
			if s.Kind == KindL1 || s.Kind == KindMove || s.Kind == KindEVM {
				esc := &nftEscrow{}
				b.nftEscrows[s.ChainID] = esc
				nft.Escrows[s.ChainID] = esc
			}
		}
		opts.NFT = nft
	}
	b.wiring, err = bridge.Wire(specs, opts)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// bots are the relayer and executor keys a chain's kind of key signs with.
func (b *bridges) bots(s ChainSpec) [2]*engine.Key {
	if s.CosmosKeys {
		return b.cosmosBots
	}
	return b.initiaBots
}

func (b *bridges) bech32(s ChainSpec, k *engine.Key) string {
	a, err := address.Bech32(s.Prefix, k.Address())
	if err != nil {
		// Prefixes are the network's own constants: a bad one is a programming error.
		panic(fmt.Sprintf("devnet: bech32 prefix %q: %v", s.Prefix, err))
	}
	return a
}

// chainParts are the bridge modules and funded bot accounts of a chain (none without
// bridges).
func (b *bridges) chainParts(s ChainSpec) ([]sim.Module, []engine.GenesisAccount) {
	if b == nil {
		return nil, nil
	}
	cm, _ := b.wiring.Chain(s.ChainID)
	bots := b.bots(s)
	mods := cm.Modules()
	if s.Kind == KindEVM && cm.BridgeID != 0 {
		// A minievm rollup is launched with the L1's coins bridged in: their ERC-20s and
		// wrapped 18-decimal tokens exist from genesis (evm.Launch).
		l := evm.Launch{}
		for _, d := range cm.Registry.OpDenoms {
			l.Denoms = append(l.Denoms, opinit.L2Denom(cm.BridgeID, d))
		}
		mods = append(mods, l)
	}
	return mods, bridge.BotAccounts(s.FeeDenom, bots[0], bots[1])
}

// start hands the built chains to the hook runners and builds the relayer/executor.
func (b *bridges) start(n *Network) error {
	for id, r := range b.runners {
		c, _ := n.Chain(id)
		r.AddModules(c.modules...)
		if c.evm != nil {
			c.evm.SetCosmosExecutor(r.Run) // the ERC20Wrapper's toRemoteAndOPWithdraw
		}
	}
	for id, s := range b.nftSinks {
		c, _ := n.Chain(id)
		s.bind(c)
	}
	for id, e := range b.nftEscrows {
		c, _ := n.Chain(id)
		e.bind(c)
	}
	var eps []relayer.Endpoint
	for _, c := range n.chains {
		bots := b.bots(c.Spec)
		ep := relayer.Endpoint{Chain: relayer.NewEngineChain(c.eng, bots[0], bots[1]), Relayer: b.bech32(c.Spec, bots[0])}
		if isRollup(c.Spec.Kind) {
			ep.Executor = b.bech32(c.Spec, bots[1])
		}
		eps = append(eps, ep)
	}
	rcfg := b.wiring.RelayerConfig(eps)
	rcfg.Logger = n.log.With("component", "relayer")
	r, err := relayer.New(rcfg)
	if err != nil {
		return err
	}
	b.relayer = r
	return nil
}

// serveExecutorAPIs starts each rollup's OPinit executor API (port +3 of the chain).
func (b *bridges) serveExecutorAPIs(n *Network) error {
	for i, c := range n.chains {
		if !isRollup(c.Spec.Kind) {
			continue
		}
		ln, err := listen(n.cfg.Host, n.cfg.port(i, 3))
		if err != nil {
			return fmt.Errorf("executor api for %s: %w", c.Spec.ChainID, err)
		}
		cm, _ := b.wiring.Chain(c.Spec.ChainID)
		ch := c.eng
		n.serve(ln, opinit.ExecutorAPI(cm.BridgeID, func() (sim.Query, error) { return ch.Query(ch.Height()) }), "executor api "+c.Spec.ChainID)
		b.execURL[c.Spec.ChainID] = "http://" + ln.Addr().String()
	}
	return nil
}
