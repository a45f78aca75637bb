package devnet

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/rollgate/rollgate/internal/chain/denom"
	"github.com/rollgate/rollgate/internal/chain/registryfile"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/layerzero"
)

// LayerZero facts of the registry: the Ethereum chain (ethereum-devnet, run by
// buildLayerZero) and the L1's OFT. The values are the layerzero package's (the router's own
// test registry uses the same, so both describe the same network).
const (
	l1LZEndpoint  = layerzero.EIDL1
	lzChainName   = "ethereum-devnet"
	lzChainID     = "31337"
	lzEndpoint    = layerzero.EIDEthereum
	l1LZUSDTDenom = "move/13646f5188844c54306f38be5d74e3ad8d02a6b9d538ce540b30e5845b27712d"
	// l1LZUSDTOFTAddr is the OFT package address in its full 64-digit form, as the registry
	// has always written it.
	l1LZUSDTOFTAddr = "0x1e8c0fb3a0ddee518632ff8429612da8c6ba19f202390e72c977286bd8e6972b"
)

var (
	lzUSDT        = layerzero.EVMUSDT.Hex()
	lzUSDTAdapter = layerzero.EVMAdapter.Hex()
	// l1LZComposer is the L1's OPinit composer, in its full 64-digit form like the OFT's.
	l1LZComposer = "0x" + layerzero.L1Composer.Hex()
)

// forwardedVouchers lists, per rollup, the ICS-20 vouchers that arrive on it through the L1
// by packet forwarding (two hops, origin → L1 → rollup): every other rollup's native tokens,
// every external chain's tokens, and every other rollup's OPinit-bridged L1 tokens (its
// l2/ INIT). Their path is the full two-hop path the rollup's chain records,
// transfer/<rollup's channel to the L1>/transfer/<L1's channel to the origin>/<denom>.
// For the L1 it lists the one-hop vouchers of the rollups' bridged L1 tokens, the hop those
// routes pass through.
func (n *Network) forwardedVouchers() map[string][]asset {
	var l1 ChainSpec
	for _, c := range n.chains {
		if c.Spec.Kind == KindL1 {
			l1 = c.Spec
		}
	}
	wiring := n.bridges.wiring
	l1m, ok := wiring.Chain(l1.ChainID)
	if !ok {
		return nil
	}
	l1Channel := map[string]string{} // origin chain id → the L1's channel to it
	for _, c := range l1m.Channels {
		l1Channel[c.CounterpartyChainID] = c.ChannelID
	}
	// what each chain originates: its native denoms, and on a rollup its bridged L1 denoms
	type token struct{ denom, l1Denom string }
	origins := map[string][]token{}
	for _, c := range n.chains {
		s, id := c.Spec, c.Spec.ChainID
		if s.Kind == KindL1 {
			continue
		}
		for _, d := range s.NativeDenoms {
			origins[id] = append(origins[id], token{denom: d})
		}
		if cm, ok := wiring.Chain(id); ok && isRollup(s.Kind) && cm.BridgeID != 0 {
			for _, d := range l1.NativeDenoms {
				origins[id] = append(origins[id], token{denom: denom.L2(cm.BridgeID, d), l1Denom: d})
			}
		}
	}
	out := map[string][]asset{}
	// The L1 hop of a rollup's bridged L1 token: listed on the L1 too (the bridge lists the
	// rollups' native tokens there already), so the route engine sees the middle of the
	// two-hop routes as a real node of the origin rollup's token.
	for _, sc := range n.chains {
		src, ss := sc.Spec.ChainID, sc.Spec
		scm, ok := wiring.Chain(src)
		if !ok || !isRollup(ss.Kind) || l1Channel[src] == "" || len(scm.Channels) == 0 {
			continue
		}
		for _, tok := range origins[src] {
			if tok.l1Denom == "" {
				continue
			}
			trace := "transfer/" + l1Channel[src]
			path := trace + "/" + tok.denom
			out[l1.ChainID] = append(out[l1.ChainID], forwardedAsset(denom.IBC(trace, tok.denom), path, tok.denom, tok.l1Denom,
				bridge.TraceCounterparty{ChainName: ss.name(), ChainID: src, BaseDenom: tok.denom, ChannelID: scm.Channels[0].ChannelID},
				bridge.TraceChain{ChannelID: l1Channel[src], Path: path}, ""))
		}
	}
	for _, dc := range n.chains {
		dst, ds := dc.Spec.ChainID, dc.Spec
		dcm, ok := wiring.Chain(dst)
		if !isRollup(ds.Kind) || !ok || len(dcm.Channels) == 0 {
			continue
		}
		toL1 := dcm.Channels[0].ChannelID
		for _, sc := range n.chains {
			src, ss := sc.Spec.ChainID, sc.Spec
			if src == dst || ss.Kind == KindL1 || l1Channel[src] == "" {
				continue
			}
			scm, _ := wiring.Chain(src)
			srcToL1 := ""
			if len(scm.Channels) > 0 {
				srcToL1 = scm.Channels[0].ChannelID
			}
			for _, tok := range origins[src] {
				trace := "transfer/" + toL1 + "/transfer/" + l1Channel[src]
				path := trace + "/" + tok.denom
				out[dst] = append(out[dst], forwardedAsset(denom.IBC(trace, tok.denom), path, tok.denom, tok.l1Denom,
					bridge.TraceCounterparty{ChainName: ss.name(), ChainID: src, BaseDenom: tok.denom, ChannelID: srcToL1},
					bridge.TraceChain{ChannelID: toL1, Path: path}, l1.name()))
			}
		}
	}
	return out
}

// forwardedAsset is the assetlist entry of a voucher (two hops when via names the chain in
// between). Units and symbol come from the token's own denom ("uusdc" → USDC, 6 decimals),
// or for a bridged L1 token from the L1 denom it stands for.
func forwardedAsset(base, path, originDenom, l1Denom string, cp bridge.TraceCounterparty, ch bridge.TraceChain, via string) asset {
	unit := originDenom
	if l1Denom != "" {
		unit = l1Denom
	}
	units, display := tokenUnits(base, unit)
	sym := strings.ToUpper(display)
	what := originDenom
	if l1Denom != "" {
		what = "bridged " + l1Denom + " (" + originDenom + ")"
	}
	desc := fmt.Sprintf("%s of %s (%s)", what, cp.ChainName, path)
	if via != "" {
		desc = fmt.Sprintf("%s of %s, forwarded through %s (%s)", what, cp.ChainName, via, path)
	}
	a := newAsset(base, display, sym, sym, desc, units...)
	a.Traces = []registryfile.Trace{{Type: "ibc", Counterparty: cp, Chain: ch}}
	return a
}

// lzBridgeTrace is the trace of a token bridged by LayerZero from base on the given chain.
func lzBridgeTrace(chainName, chainID, base string) []registryfile.Trace {
	return []registryfile.Trace{{Provider: "LayerZero", Type: "bridge",
		Counterparty: registryfile.TraceCounterparty{ChainName: chainName, ChainID: chainID, BaseDenom: base}}}
}

func l1LZAsset() asset {
	a := newAsset(l1LZUSDTDenom, "usdt", "Tether USD (LayerZero)", "USDT", "Tether USD (LayerZero)",
		denomUnit(l1LZUSDTDenom, 0), denomUnit("usdt", 6))
	a.Traces = lzBridgeTrace(lzChainName, lzChainID, lzUSDT)
	a.LayerZero = &registryfile.LayerZeroAsset{OFTAddress: l1LZUSDTOFTAddr}
	return a
}

func lzChainJSON(jsonRPC string) registryfile.Chain {
	return registryfile.Chain{
		Schema: "../chain.schema.json", ChainName: lzChainName, PrettyName: "Ethereum Devnet",
		ChainID: lzChainID, ChainType: "evm", EVMChainID: json.RawMessage(lzChainID), NetworkType: "devnet",
		APIs:     registryfile.APIs{JSONRPC: endpoints(jsonRPC)},
		Metadata: registryfile.Metadata{LayerZero: &registryfile.LayerZeroEndpoint{EndpointID: lzEndpoint}},
	}
}

func lzAssetlist(l1Name, l1ID string) registryfile.AssetList {
	eth := newAsset(lzChainName+"-native", "eth", "Ether", "ETH", "Ether",
		denomUnit(lzChainName+"-native", 0), denomUnit("eth", 18))
	usdt := newAsset(lzUSDT, "usdt", "Tether USD", "USDT", "Tether USD", denomUnit(lzUSDT, 0), denomUnit("usdt", 6))
	usdt.Traces = lzBridgeTrace(l1Name, l1ID, l1LZUSDTDenom)
	usdt.LayerZero = &registryfile.LayerZeroAsset{OFTAddress: lzUSDTAdapter, NeedsApproval: true}
	return registryfile.AssetList{Schema: "../assetlist.schema.json", ChainName: lzChainName, Assets: []asset{eth, usdt}}
}

// lzRollupAsset is, on a Move or Wasm rollup, the L1's LayerZero USDT as an OPinit deposit
// mints it there (l2/<sha256 of the bridge id and the L1 denom>, an op trace), so routes
// from Ethereum through the L1 to the rollup (LayerZero, then the deposit) exist. The EVM
// rollup is left out: its bridged coins are ERC-20s made at launch (evm.Launch) with their
// wrapped tokens, and USDT is not one of them.
func (n *Network) lzRollupAsset(c *Chain) (asset, bool) {
	if !n.cfg.LayerZero || n.bridges == nil || (c.Spec.Kind != KindMove && c.Spec.Kind != KindWasm) {
		return asset{}, false
	}
	cm, ok := n.bridges.wiring.Chain(c.Spec.ChainID)
	if !ok || cm.BridgeID == 0 {
		return asset{}, false
	}
	var l1 ChainSpec
	for _, o := range n.chains {
		if o.Spec.Kind == KindL1 {
			l1 = o.Spec
		}
	}
	base := denom.L2(cm.BridgeID, l1LZUSDTDenom)
	a := newAsset(base, "usdt", "Tether USD (LayerZero)", "USDT", "bridged Tether USD (LayerZero) of "+l1.name(),
		denomUnit(base, 0), denomUnit("usdt", 6))
	a.Traces = []registryfile.Trace{{Type: "op", Counterparty: registryfile.TraceCounterparty{ChainName: l1.name(), ChainID: l1.ChainID, BaseDenom: l1LZUSDTDenom},
		Chain: registryfile.TraceChain{BridgeID: strconv.FormatUint(cm.BridgeID, 10)}}}
	return a, true
}
