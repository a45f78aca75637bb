package localnet

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rollgate/rollgate/internal/chain/denom"
	"github.com/rollgate/rollgate/internal/devnet/bridge"
	"github.com/rollgate/rollgate/internal/devnet/engine"
)

// LayerZero facts of the registry-only EVM peer. No chain is simulated for it: the router
// only needs the registry entries to offer LayerZero routes (the values follow the router's
// own test registry, so both describe the same network).
const (
	l1LZEndpoint    = 40326
	lzChainName     = "ethereum-devnet"
	lzChainID       = "31337"
	lzEndpoint      = 40161
	lzJSONRPC       = "http://127.0.0.1:8545"
	lzUSDT          = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
	lzUSDTAdapter   = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512"
	l1LZUSDTDenom   = "move/13646f5188844c54306f38be5d74e3ad8d02a6b9d538ce540b30e5845b27712d"
	l1LZUSDTOFTAddr = "0x1e8c0fb3a0ddee518632ff8429612da8c6ba19f202390e72c977286bd8e6972b"
)

// WriteRegistry writes the initia-registry directory of the network: the engine's
// chain.json/assetlist.json per chain (with the bridge metadata: op_bridge_id, op_denoms,
// ibc_channels, ibc_capabilities, executor_uri), the bridge's one-hop traced assets and the
// vouchers that reach a rollup through the L1 by packet forwarding (see forwardedVouchers)
// merged into each assetlist, and, with LayerZero on, the registry-only EVM peer and the
// L1's OFT asset.
func (n *Network) WriteRegistry(dir string) error {
	if err := n.devnet.WriteRegistry(dir); err != nil {
		return err
	}
	forwarded := n.forwardedVouchers()
	for _, id := range n.order {
		s := n.specs[id]
		cm, _ := n.wiring.Chain(id)
		var extra []map[string]any
		for _, a := range cm.Registry.Assets {
			extra = append(extra, a.AssetJSON())
		}
		extra = append(extra, forwarded[id]...)
		if s.Kind == engine.KindL1 && n.cfg.LayerZero {
			extra = append(extra, l1LZAsset())
		}
		if err := mergeAssets(filepath.Join(dir, s.name(), "assetlist.json"), s.name(), extra); err != nil {
			return fmt.Errorf("registry %s: %w", id, err)
		}
	}
	if n.cfg.LayerZero {
		if err := writeJSON(filepath.Join(dir, lzChainName, "chain.json"), lzChainJSON()); err != nil {
			return err
		}
		var l1 ChainSpec
		for _, id := range n.order {
			if n.specs[id].Kind == engine.KindL1 {
				l1 = n.specs[id]
			}
		}
		if err := writeJSON(filepath.Join(dir, lzChainName, "assetlist.json"), lzAssetlist(l1.name(), l1.ChainID)); err != nil {
			return err
		}
	}
	return nil
}

// forwardedVouchers lists, per rollup, the ICS-20 vouchers that arrive on it through the L1
// by packet forwarding (two hops, origin → L1 → rollup): every other rollup's native tokens,
// every external chain's tokens, and every other rollup's OPinit-bridged L1 tokens (its
// l2/ INIT). Their path is the full two-hop path the rollup's chain records,
// transfer/<rollup's channel to the L1>/transfer/<L1's channel to the origin>/<denom>.
// For the L1 it lists the one-hop vouchers of the rollups' bridged L1 tokens, the hop those
// routes pass through.
func (n *Network) forwardedVouchers() map[string][]map[string]any {
	var l1 ChainSpec
	for _, id := range n.order {
		if n.specs[id].Kind == engine.KindL1 {
			l1 = n.specs[id]
		}
	}
	l1m, ok := n.wiring.Chain(l1.ChainID)
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
	for _, id := range n.order {
		s := n.specs[id]
		if s.Kind == engine.KindL1 {
			continue
		}
		for _, d := range s.NativeDenoms {
			origins[id] = append(origins[id], token{denom: d})
		}
		if cm, ok := n.wiring.Chain(id); ok && isRollup(s.Kind) && cm.BridgeID != 0 {
			for _, d := range l1.NativeDenoms {
				origins[id] = append(origins[id], token{denom: denom.L2(cm.BridgeID, d), l1Denom: d})
			}
		}
	}
	out := map[string][]map[string]any{}
	// The L1 hop of a rollup's bridged L1 token: listed on the L1 too (the bridge lists the
	// rollups' native tokens there already), so the route engine sees the middle of the
	// two-hop routes as a real node of the origin rollup's token.
	for _, src := range n.order {
		ss := n.specs[src]
		scm, ok := n.wiring.Chain(src)
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
	for _, dst := range n.order {
		ds := n.specs[dst]
		dcm, ok := n.wiring.Chain(dst)
		if !isRollup(ds.Kind) || !ok || len(dcm.Channels) == 0 {
			continue
		}
		toL1 := dcm.Channels[0].ChannelID
		for _, src := range n.order {
			ss := n.specs[src]
			if src == dst || ss.Kind == engine.KindL1 || l1Channel[src] == "" {
				continue
			}
			scm, _ := n.wiring.Chain(src)
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
// between). Units and symbol come from the
// token's own denom ("uusdc" → USDC, 6 decimals), or for a bridged L1 token from the L1
// denom it stands for.
func forwardedAsset(base, path, originDenom, l1Denom string, cp bridge.TraceCounterparty, ch bridge.TraceChain, via string) map[string]any {
	unit := originDenom
	if l1Denom != "" {
		unit = l1Denom
	}
	display, exp := unit, 0
	if len(unit) > 1 && unit[0] == 'u' {
		display, exp = unit[1:], 6
	}
	units := []map[string]any{{"denom": base, "exponent": 0}}
	if exp > 0 {
		units = append(units, map[string]any{"denom": display, "exponent": exp})
	}
	sym := strings.ToUpper(display)
	what := originDenom
	if l1Denom != "" {
		what = "bridged " + l1Denom + " (" + originDenom + ")"
	}
	desc := fmt.Sprintf("%s of %s (%s)", what, cp.ChainName, path)
	if via != "" {
		desc = fmt.Sprintf("%s of %s, forwarded through %s (%s)", what, cp.ChainName, via, path)
	}
	return map[string]any{
		"description": desc,
		"denom_units": units, "base": base, "display": display, "name": sym, "symbol": sym,
		"traces": []bridge.RegistryTrace{{Type: "ibc", Counterparty: cp, Chain: ch}},
		"images": []any{}, "logo_URIs": map[string]string{},
	}
}

// mergeAssets appends assets to an assetlist.json, skipping bases already listed (the
// engine lists the chain's genesis denoms).
func mergeAssets(path, chainName string, extra []map[string]any) error {
	doc := map[string]any{"chain_name": chainName}
	raw, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := json.Unmarshal(raw, &doc); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	case !os.IsNotExist(err):
		return err
	}
	assets, _ := doc["assets"].([]any)
	have := map[string]bool{}
	for _, a := range assets {
		if m, ok := a.(map[string]any); ok {
			if b, ok := m["base"].(string); ok {
				have[b] = true
			}
		}
	}
	for _, a := range extra {
		b, _ := a["base"].(string)
		if have[b] {
			continue
		}
		have[b] = true
		assets = append(assets, a)
	}
	if assets == nil {
		assets = []any{}
	}
	doc["assets"] = assets
	return writeJSON(path, doc)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func units(base, display string, exp int) []map[string]any {
	return []map[string]any{{"denom": base, "exponent": 0}, {"denom": display, "exponent": exp}}
}

func l1LZAsset() map[string]any {
	return map[string]any{
		"description": "Tether USD (LayerZero)", "denom_units": units(l1LZUSDTDenom, "usdt", 6),
		"base": l1LZUSDTDenom, "display": "usdt", "name": "Tether USD (LayerZero)", "symbol": "USDT",
		"traces": []any{map[string]any{"type": "bridge", "provider": "LayerZero",
			"counterparty": map[string]any{"chain_name": lzChainName, "chain_id": lzChainID, "base_denom": lzUSDT},
			"chain":        map[string]any{}}},
		"layerzero": map[string]any{"oft_address": l1LZUSDTOFTAddr},
		"images":    []any{}, "logo_URIs": map[string]string{},
	}
}

func lzChainJSON() map[string]any {
	return map[string]any{
		"$schema": "../chain.schema.json", "chain_name": lzChainName, "pretty_name": "Ethereum Devnet",
		"chain_id": lzChainID, "chain_type": "evm", "evm_chain_id": 31337, "network_type": "devnet",
		"apis":     map[string]any{"json-rpc": []any{map[string]string{"address": lzJSONRPC}}},
		"metadata": map[string]any{"layerzero": map[string]any{"endpoint_id": lzEndpoint}},
	}
}

func lzAssetlist(l1Name, l1ID string) map[string]any {
	return map[string]any{"$schema": "../assetlist.schema.json", "chain_name": lzChainName, "assets": []any{
		map[string]any{"description": "Ether", "denom_units": units(lzChainName+"-native", "eth", 18),
			"base": lzChainName + "-native", "display": "eth", "name": "Ether", "symbol": "ETH", "images": []any{}, "logo_URIs": map[string]string{}},
		map[string]any{"description": "Tether USD", "denom_units": units(lzUSDT, "usdt", 6),
			"base": lzUSDT, "display": "usdt", "name": "Tether USD", "symbol": "USDT",
			"traces": []any{map[string]any{"type": "bridge", "provider": "LayerZero",
				"counterparty": map[string]any{"chain_name": l1Name, "chain_id": l1ID, "base_denom": l1LZUSDTDenom},
				"chain":        map[string]any{}}},
			"layerzero": map[string]any{"oft_address": lzUSDTAdapter, "needs_approval": true},
			"images":    []any{}, "logo_URIs": map[string]string{}},
	}}
}
