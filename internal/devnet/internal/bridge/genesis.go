package bridge

import (
	"fmt"
	"strconv"
	"time"

	"github.com/rollgate/rollgate/internal/chain/denom"
	"github.com/rollgate/rollgate/internal/chain/registryfile"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/ibc"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/opinit"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/relayer"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// Chain kinds: the engine's, so a spec's kind is passed as it is.
const (
	KindL1       = engine.KindL1   // Initia L1 (Move VM, ophost, Move ibc-hooks)
	KindMinimove = engine.KindMove // rollups run opchild and their VM's ibc-hooks
	KindMinievm  = engine.KindEVM
	KindMiniwasm = engine.KindWasm
	KindExternal = engine.KindCosmos // an external Cosmos chain: IBC only, no hooks
)

// ChainSpec describes one chain of the network.
type ChainSpec struct {
	ChainID string
	Kind    engine.Kind
	Prefix  string // bech32 account prefix, e.g. "init"
	// ChainName is the registry chain_name (defaults to ChainID).
	ChainName string
	// NativeDenoms are the chain's own denoms, for the asset traces of the registry
	// (the L1's are also the OPinit-bridged denoms, op_denoms).
	NativeDenoms []string
	// Executor is the bridge executor's address on a rollup (required for rollups).
	Executor string
}

// Options are optional engine hooks and timings.
type Options struct {
	// IBCHooks executes ibc-hooks messages per chain id (nil entries: no-op hooks).
	IBCHooks map[string]ibc.HookExecutor
	// DepositHooks executes deposit hooks per rollup chain id.
	DepositHooks map[string]opinit.DepositHookExecutor
	// Withdrawals lets L1 check withdrawal claims against the rollups' state.
	Withdrawals opinit.WithdrawalSource
	// FinalizationPeriod of every bridge (0: claims are possible at once).
	FinalizationPeriod time.Duration
	// KeepWithdrawals: see opinit.ChildConfig (0: for good).
	KeepWithdrawals time.Duration
	// SubmissionInterval of every bridge (default 1 minute; informational).
	SubmissionInterval time.Duration
	// BridgeOperator is the L1 address shown as proposer/challenger/submitter.
	BridgeOperator string
	// TrafficRate turns on the bridge modules' seeded traffic: per block, the chance of
	// one IBC transfer on every chain, one deposit on L1 and one withdrawal on each
	// rollup (0: off).
	TrafficRate float64
	// NFT wires ICS-721 (nil: off): an nft-transfer channel between the L1 and every
	// rollup, the L1's classes and its seeded transfers, and each rollup's receiver.
	NFT *NFTOptions
}

// NFTOptions configures ICS-721.
type NFTOptions struct {
	// Classes are the L1's NFT classes at genesis, with their holders.
	Classes []ibc.NFTClass
	// Receivers mint received vouchers per rollup chain id.
	Receivers map[string]ibc.NFTReceiver
	// Rate is the chance per block of one ICS-721 transfer from the L1.
	Rate float64
	// Escrows send a chain VM's own NFTs over ICS-721 (class ids move/<collection>,
	// evm/<contract>), by chain id: the L1 beside its class store, minimove and minievm rollups.
	Escrows map[string]ibc.NFTEscrow
}

// ChainModules is what one chain runs of the bridge stack.
type ChainModules struct {
	Spec     ChainSpec
	IBC      *ibc.Module
	Host     *opinit.Host  // L1 only
	Child    *opinit.Child // rollups only
	Channels []ibc.Channel
	// NFTChannels are the nft-transfer channels (ICS-721 on), kept apart from Channels, the
	// transfer channels the registry lists.
	NFTChannels []ibc.Channel
	BridgeID    uint64 // rollups only
	// Registry is the chain.json metadata and asset traces the router needs.
	Registry Registry
}

// Modules lists the sim.Modules to install on the chain.
func (c *ChainModules) Modules() []sim.Module {
	out := []sim.Module{c.IBC}
	if c.Host != nil {
		out = append(out, c.Host)
	}
	if c.Child != nil {
		out = append(out, c.Child)
	}
	return out
}

// Registry is the bridge part of a chain's registry entry, in initia-registry field names.
type Registry struct {
	IsL1        bool              `json:"is_l1,omitempty"`
	Hooks       bool              `json:"-"` // the chain runs ibc-hooks
	OpBridgeID  string            `json:"op_bridge_id,omitempty"`
	OpDenoms    []string          `json:"op_denoms,omitempty"`
	IBCChannels []RegistryChannel `json:"ibc_channels"`
	// Assets are the bridged assets present on the chain, with their traces.
	Assets []RegistryAsset `json:"assets"`
}

// RegistryChannel is one metadata.ibc_channels entry.
type RegistryChannel struct {
	ChainID   string `json:"chain_id"`
	PortID    string `json:"port_id"`
	ChannelID string `json:"channel_id"`
	Version   string `json:"version"`
}

// RegistryAsset is a bridged asset (assetlist.json `base` and `traces`).
type RegistryAsset struct {
	Base   string          `json:"base"`
	Traces []RegistryTrace `json:"traces"`
}

// RegistryTrace is an assetlist trace of type "ibc" or "op", in the registry's own type.
type RegistryTrace = registryfile.Trace

// TraceCounterparty is the origin side of a trace.
type TraceCounterparty = registryfile.TraceCounterparty

// TraceChain is the local side of a trace.
type TraceChain = registryfile.TraceChain

// Network is the wiring of every chain.
type Network struct {
	Chains []*ChainModules
	byID   map[string]*ChainModules
}

// Chain returns a chain's modules.
func (n *Network) Chain(id string) (*ChainModules, bool) {
	c, ok := n.byID[id]
	return c, ok
}

// hookVM is the VM whose ibc-hooks a chain runs: the L1's is Move's; an external chain has none.
func hookVM(kind engine.Kind) vmkind.Kind {
	switch kind {
	case KindL1, KindMinimove:
		return vmkind.Move
	case KindMinievm:
		return vmkind.EVM
	case KindMiniwasm:
		return vmkind.Wasm
	}
	return ""
}

func isRollup(kind engine.Kind) bool {
	return kind == KindMinimove || kind == KindMinievm || kind == KindMiniwasm
}

// Wire builds the bridge modules of every chain. Exactly one chain must be the L1; every
// other chain gets one transfer channel with it (L1 channel-N ↔ its channel-0, in list
// order), and every rollup gets OPinit bridge id N (1-based, in rollup order).
func Wire(specs []ChainSpec, opts Options) (*Network, error) {
	var l1 *ChainSpec
	for i := range specs {
		s := &specs[i]
		if s.ChainID == "" || s.Prefix == "" {
			return nil, fmt.Errorf("bridge: chain %d needs an id and a prefix", i)
		}
		switch s.Kind {
		case KindL1:
			if l1 != nil {
				return nil, fmt.Errorf("bridge: two L1 chains (%s, %s)", l1.ChainID, s.ChainID)
			}
			l1 = s
		case KindMinimove, KindMinievm, KindMiniwasm:
			if s.Executor == "" {
				return nil, fmt.Errorf("bridge: rollup %s needs an executor address", s.ChainID)
			}
		case KindExternal:
		default:
			return nil, fmt.Errorf("bridge: chain %s: unknown kind %q", s.ChainID, s.Kind)
		}
	}
	if l1 == nil {
		return nil, fmt.Errorf("bridge: no L1 chain")
	}
	if opts.SubmissionInterval == 0 {
		opts.SubmissionInterval = time.Minute
	}
	name := func(s ChainSpec) string {
		if s.ChainName != "" {
			return s.ChainName
		}
		return s.ChainID
	}

	n := &Network{byID: map[string]*ChainModules{}}
	l1m := &ChainModules{Spec: *l1, Registry: Registry{IsL1: true, OpDenoms: l1.NativeDenoms}}
	var bridges []opinit.Bridge
	rollupN := uint64(0)
	l1Index := 0
	others := map[string]*ChainModules{}
	for _, s := range specs {
		if s.Kind == KindL1 {
			continue
		}
		cm := &ChainModules{Spec: s}
		l1ch := ibc.Channel{
			PortID: "transfer", ChannelID: "channel-" + strconv.Itoa(l1Index),
			ConnectionID: "connection-" + strconv.Itoa(l1Index), ClientID: "07-tendermint-" + strconv.Itoa(l1Index),
			CounterpartyChainID: s.ChainID, CounterpartyPortID: "transfer", CounterpartyChannelID: "channel-0",
			CounterpartyConnectionID: "connection-0", CounterpartyClientID: "07-tendermint-0",
			CounterpartyPrefix: s.Prefix,
		}
		och := ibc.Channel{
			PortID: "transfer", ChannelID: "channel-0", ConnectionID: "connection-0", ClientID: "07-tendermint-0",
			CounterpartyChainID: l1.ChainID, CounterpartyPortID: "transfer", CounterpartyChannelID: l1ch.ChannelID,
			CounterpartyConnectionID: l1ch.ConnectionID, CounterpartyClientID: l1ch.ClientID,
			CounterpartyPrefix: l1.Prefix,
		}
		l1Index++
		if opts.NFT != nil && isRollup(s.Kind) {
			// The nft-transfer channel runs over the same connection and clients; its L1 end
			// is numbered after every transfer channel so those keep their ids.
			nl1, nrl := l1ch, och
			nl1.PortID, nl1.CounterpartyPortID, nl1.CounterpartyChannelID = ibc.NFTPort, ibc.NFTPort, "channel-1"
			nrl.PortID, nrl.CounterpartyPortID, nrl.ChannelID = ibc.NFTPort, ibc.NFTPort, "channel-1"
			nl1.ChannelID = "" // numbered below, once the transfer channels are counted
			l1m.NFTChannels = append(l1m.NFTChannels, nl1)
			cm.NFTChannels = []ibc.Channel{nrl}
		}
		l1m.Channels = append(l1m.Channels, l1ch)
		cm.Channels = []ibc.Channel{och}
		l1m.Registry.IBCChannels = append(l1m.Registry.IBCChannels, RegistryChannel{s.ChainID, "transfer", l1ch.ChannelID, ibc.Version})
		cm.Registry.IBCChannels = []RegistryChannel{{l1.ChainID, "transfer", "channel-0", ibc.Version}}

		// IBC vouchers both ways, one hop.
		for _, d := range l1.NativeDenoms {
			path := "transfer/channel-0/" + d
			cm.Registry.Assets = append(cm.Registry.Assets, RegistryAsset{Base: "ibc/" + denom.IBCHash(path), Traces: []RegistryTrace{{
				Type:         "ibc",
				Counterparty: TraceCounterparty{ChainName: name(*l1), ChainID: l1.ChainID, BaseDenom: d, ChannelID: l1ch.ChannelID},
				Chain:        TraceChain{ChannelID: "channel-0", Path: path},
			}}})
		}
		for _, d := range s.NativeDenoms {
			path := "transfer/" + l1ch.ChannelID + "/" + d
			l1m.Registry.Assets = append(l1m.Registry.Assets, RegistryAsset{Base: "ibc/" + denom.IBCHash(path), Traces: []RegistryTrace{{
				Type:         "ibc",
				Counterparty: TraceCounterparty{ChainName: name(s), ChainID: s.ChainID, BaseDenom: d, ChannelID: "channel-0"},
				Chain:        TraceChain{ChannelID: l1ch.ChannelID, Path: path},
			}}})
		}

		if isRollup(s.Kind) {
			rollupN++
			b := opinit.Bridge{ID: rollupN, L2ChainID: s.ChainID, Proposer: opts.BridgeOperator, Challenger: opts.BridgeOperator,
				Submitter: opts.BridgeOperator, SubmissionInterval: opts.SubmissionInterval,
				FinalizationPeriod: opts.FinalizationPeriod, SubmissionStartHeight: 1,
				// Every rollup's oracle holds the L1's Connect prices (internal/devnet/internal/oracle), as a
				// bridge with the oracle relay on does.
				OracleEnabled: true,
				Metadata:      []byte(`{"perm_channels":[{"port_id":"transfer","channel_id":"` + l1ch.ChannelID + `"}]}`)}
			bridges = append(bridges, b)
			cm.BridgeID = b.ID
			cm.Registry.OpBridgeID = strconv.FormatUint(b.ID, 10)
			cm.Registry.OpDenoms = l1.NativeDenoms
			var hooks opinit.DepositHookExecutor
			if opts.DepositHooks != nil {
				hooks = opts.DepositHooks[s.ChainID]
			}
			cc := opinit.ChildConfig{Bridge: b, L1ChainID: l1.ChainID, L1ClientID: "07-tendermint-0",
				L1Prefix: l1.Prefix, Executors: []string{s.Executor}, Hooks: hooks, KeepWithdrawals: opts.KeepWithdrawals}
			if opts.TrafficRate > 0 {
				cc.Traffic = &opinit.Traffic{Rate: opts.TrafficRate}
			}
			cm.Child = opinit.NewChild(cc)
			for _, d := range l1.NativeDenoms {
				cm.Registry.Assets = append(cm.Registry.Assets, RegistryAsset{Base: opinit.L2Denom(b.ID, d), Traces: []RegistryTrace{{
					Type:         "op",
					Counterparty: TraceCounterparty{ChainName: name(*l1), ChainID: l1.ChainID, BaseDenom: d},
					Chain:        TraceChain{BridgeID: strconv.FormatUint(b.ID, 10)},
				}}})
			}
		}
		others[s.ChainID] = cm
	}
	for i := range l1m.NFTChannels {
		id := "channel-" + strconv.Itoa(len(l1m.Channels)+i)
		l1m.NFTChannels[i].ChannelID = id
		counterparty := others[l1m.NFTChannels[i].CounterpartyChainID]
		counterparty.NFTChannels[0].CounterpartyChannelID = id
		// The registry lists ICS-721 channels beside the ICS-20 ones, told apart by their
		// version, as initia-registry's chain.json does (the router's /nft finds them there).
		l1m.Registry.IBCChannels = append(l1m.Registry.IBCChannels, RegistryChannel{counterparty.Spec.ChainID, ibc.NFTPort, id, ibc.NFTVersion})
		counterparty.Registry.IBCChannels = append(counterparty.Registry.IBCChannels, RegistryChannel{l1.ChainID, ibc.NFTPort, counterparty.NFTChannels[0].ChannelID, ibc.NFTVersion})
	}
	hc := opinit.HostConfig{Bridges: bridges, Withdrawals: opts.Withdrawals}
	if opts.TrafficRate > 0 {
		hc.Traffic = &opinit.Traffic{Rate: opts.TrafficRate, Denoms: l1.NativeDenoms}
	}
	l1m.Host = opinit.NewHost(hc)
	for _, s := range specs {
		var cm *ChainModules
		if s.Kind == KindL1 {
			cm = l1m
		} else {
			cm = others[s.ChainID]
		}
		var hooks ibc.HookExecutor
		if opts.IBCHooks != nil {
			hooks = opts.IBCHooks[s.ChainID]
		}
		ic := ibc.Config{Channels: cm.Channels, HookVM: hookVM(s.Kind), Hooks: hooks}
		if opts.TrafficRate > 0 {
			ic.Traffic = &ibc.Traffic{Rate: opts.TrafficRate, Denoms: s.NativeDenoms}
			if s.Kind != KindL1 {
				// two hops through the L1 to every other chain
				for _, lc := range l1m.Channels {
					if lc.CounterpartyChainID != s.ChainID {
						ic.Traffic.Forwards = append(ic.Traffic.Forwards, ibc.ForwardRoute{Channel: "channel-0", NextChannel: lc.ChannelID, FinalPrefix: lc.CounterpartyPrefix})
					}
				}
			}
		}
		if opts.NFT != nil && len(cm.NFTChannels) > 0 {
			nc := &ibc.NFTConfig{Channels: cm.NFTChannels, PathNames: s.Kind == KindMiniwasm}
			if s.Kind == KindL1 {
				nc.Classes, nc.Rate = opts.NFT.Classes, opts.NFT.Rate
			}
			nc.Receiver, nc.Escrow = opts.NFT.Receivers[s.ChainID], opts.NFT.Escrows[s.ChainID]
			ic.NFT = nc
		}
		cm.IBC = ibc.New(ic)
		cm.Registry.Hooks = hookVM(s.Kind) != ""
		n.Chains = append(n.Chains, cm)
		n.byID[s.ChainID] = cm
	}
	return n, nil
}

// RelayerConfig returns the relayer configuration for the network's channels and
// bridges; the engine supplies one endpoint per chain (its in-process chain view and the
// relayer/executor accounts whose keys it holds).
func (n *Network) RelayerConfig(endpoints []relayer.Endpoint) relayer.Config {
	cfg := relayer.Config{Endpoints: endpoints, Counterparty: map[relayer.ChannelEnd]string{}}
	var l1 string
	for _, c := range n.Chains {
		for _, ch := range append(append([]ibc.Channel(nil), c.Channels...), c.NFTChannels...) {
			cfg.Counterparty[relayer.ChannelEnd{ChainID: c.Spec.ChainID, PortID: ch.PortID, Channel: ch.ChannelID}] = ch.CounterpartyChainID
		}
		if c.Spec.Kind == KindL1 {
			l1 = c.Spec.ChainID
		}
	}
	for _, c := range n.Chains {
		if c.BridgeID != 0 {
			cfg.Bridges = append(cfg.Bridges, relayer.BridgeLink{BridgeID: c.BridgeID, L1ChainID: l1, L2ChainID: c.Spec.ChainID})
		}
	}
	return cfg
}
