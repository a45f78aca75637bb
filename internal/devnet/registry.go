package devnet

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rollgate/rollgate/internal/chain/registryfile"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/evm"
)

// The network's registry is written with registryfile's types, whose member order is the
// byte order of the files the devnet has always written (the router's committed copy,
// internal/router/registry/testdata/devnet, holds them byte for byte).

// asset is an assetlist entry; the short name reads better in the builders below.
type asset = registryfile.Asset

// zeroFees are a fee token's tiers. The devnet's engine enforces no minimum gas price:
// CheckTx and DeliverTx accept a tx with no fee at all, and any fee a tx does carry is only
// moved to the fee collector. So every tier of every fee token is 0, fixed_min_gas_price
// included: the registry tells wallets and the router what the chains require (nothing)
// rather than a price they do not enforce.
func zeroFees(denom string) *registryfile.Fees {
	return &registryfile.Fees{FeeTokens: []registryfile.FeeToken{{Denom: denom,
		FixedMinGasPrice: "0", LowGasPrice: "0", AverageGasPrice: "0", HighGasPrice: "0"}}}
}

func endpoints(addr string) []registryfile.Endpoint { return []registryfile.Endpoint{{Address: addr}} }

func denomUnit(denom string, exponent int) registryfile.DenomUnit {
	return registryfile.DenomUnit{Denom: denom, Exponent: exponent}
}

// newAsset is an asset entry with no images and no logos.
func newAsset(base, display, name, symbol, description string, units ...registryfile.DenomUnit) asset {
	return asset{Base: base, Display: display, Name: name, Symbol: symbol, Description: description,
		DenomUnits: units, Images: []registryfile.Image{}}
}

// tokenUnits are the units of a token whose micro denom is base: "uusdc" has the display
// unit usdc at 6 decimals; a denom without the micro prefix is a single unit.
func tokenUnits(base, unit string) (units []registryfile.DenomUnit, display string) {
	if len(unit) > 1 && unit[0] == 'u' {
		return []registryfile.DenomUnit{denomUnit(base, 0), denomUnit(unit[1:], 6)}, unit[1:]
	}
	return []registryfile.DenomUnit{denomUnit(base, 0)}, unit
}

func minitiaType(k Kind) string {
	switch k {
	case KindEVM:
		return "minievm"
	case KindMove:
		return "minimove"
	case KindWasm:
		return "miniwasm"
	}
	return ""
}

// chainDoc is a chain's chain.json.
func (n *Network) chainDoc(c *Chain) registryfile.Chain {
	e := c.Endpoints
	cfg := c.eng.Config()
	doc := registryfile.Chain{
		Schema: "../chain.schema.json", ChainName: c.Spec.name(), PrettyName: prettyName(c.Spec.name()),
		ChainID: c.Spec.ChainID, Bech32Prefix: cfg.Bech32Prefix, NetworkType: "devnet",
		APIs: registryfile.APIs{RPC: endpoints(e.RPC), REST: endpoints(e.REST), GRPC: []registryfile.Endpoint{}},
		// Initia chains sign with eth_secp256k1 keys (coin type 60); a chain with plain
		// Cosmos keys (the external hub) signs with secp256k1 under the Cosmos coin type.
		KeyAlgos: []string{"ethsecp256k1", "secp256k1"}, Slip44: 60,
		Fees: zeroFees(cfg.FeeDenom),
		Metadata: registryfile.Metadata{
			Assetlist:   "file://" + filepath.ToSlash(filepath.Join(c.Spec.name(), "assetlist.json")),
			OpDenoms:    []string{},
			IBCChannels: []registryfile.IBCChannel{},
		},
	}
	if cfg.CosmosKeys {
		doc.KeyAlgos, doc.Slip44 = []string{"secp256k1"}, 118
	}
	if e.JSONRPC != "" {
		doc.APIs.JSONRPC = endpoints(e.JSONRPC)
	}
	if c.Spec.Kind == KindL1 {
		doc.Metadata.IsL1 = true
		if n.cfg.LayerZero {
			doc.Metadata.LayerZero = &registryfile.LayerZeroEndpoint{EndpointID: l1LZEndpoint, OPinitComposer: l1LZComposer}
		}
	} else if t := minitiaType(c.Spec.Kind); t != "" {
		doc.Metadata.Minitia = &registryfile.Minitia{Type: t, Version: cfg.AppVersion}
	}
	if c.evm != nil {
		if id := c.evm.EVMChainID(c.Spec.ChainID); id != 0 {
			doc.EVMChainID = json.RawMessage(strconv.FormatUint(id, 10))
		}
	}
	if n.bridges != nil {
		cm, _ := n.bridges.wiring.Chain(c.Spec.ChainID)
		r := cm.Registry
		yes := true
		doc.Metadata.IBCCapabilities = &registryfile.IBCCapabilities{IBCHooks: &r.Hooks, Memo: &yes, PFM: &yes}
		for _, ch := range r.IBCChannels {
			doc.Metadata.IBCChannels = append(doc.Metadata.IBCChannels, registryfile.IBCChannel{ChainID: ch.ChainID,
				PortID: ch.PortID, ChannelID: ch.ChannelID, Version: registryfile.StringVersion(ch.Version)})
		}
		if r.OpBridgeID != "" {
			doc.Metadata.OpBridgeID = r.OpBridgeID
			doc.Metadata.OpDenoms = append([]string{}, r.OpDenoms...)
		}
		doc.Metadata.ExecutorURI = n.bridges.execURL[c.Spec.ChainID]
	}
	return doc
}

// prettyNames are display names for chain_names that do not read as a name once capitalised.
var prettyNames = map[string]string{"cosmoshub": "Cosmos Hub"}

func prettyName(s string) string {
	if s == "" {
		return s
	}
	if p, ok := prettyNames[s]; ok {
		return p + " Devnet"
	}
	return strings.ToUpper(s[:1]) + s[1:] + " Devnet"
}

// genesisAssets are the tokens a chain issues at genesis (ERC-20s on an EVM chain).
func genesisAssets(c *Chain) []asset {
	cfg := c.eng.Config()
	var out []asset
	for _, coin := range cfg.AccountCoins {
		units, display := tokenUnits(coin.Denom, coin.Denom)
		if coin.Denom == "GAS" {
			units, display = []registryfile.DenomUnit{denomUnit(coin.Denom, 0), denomUnit("gas", 18)}, "gas"
		}
		// Says where the token comes from: several chains mint their own "USDC" at genesis
		// (the L1 among them), next to the bridged vouchers of each other's.
		desc := fmt.Sprintf("%s issued at genesis on %s (%s), native to this devnet chain, not bridged",
			strings.ToUpper(display), prettyName(c.Spec.name()), c.Spec.ChainID)
		name := strings.ToUpper(display)
		if coin.Denom != cfg.FeeDenom {
			name += " (" + prettyName(c.Spec.name()) + ")" // "USDC (Initia Devnet)"
		}
		a := newAsset(coin.Denom, display, name, strings.ToUpper(display), desc, units...)
		if c.evm != nil {
			a.TypeAsset, a.Address = "erc20", evm.DenomContract(coin.Denom).Hex()
		}
		out = append(out, a)
	}
	return out
}

// bridgedAsset is the entry of an asset the bridge put on a chain, its units and symbol
// derived from the origin's base denom ("uinit" → INIT with 6 decimals).
func bridgedAsset(a bridge.RegistryAsset) asset {
	origin := a.Base
	if len(a.Traces) > 0 {
		origin = a.Traces[0].Counterparty.BaseDenom
	}
	units, display := tokenUnits(a.Base, origin)
	sym := strings.ToUpper(display)
	out := newAsset(a.Base, display, sym, sym, "bridged "+origin, units...)
	out.Traces = append(out.Traces, a.Traces...)
	return out
}

// wrappedAsset is the entry of the wrapper's 18-decimal token over an OPinit-bridged coin of
// an EVM rollup: base evm/<address>, units 0 and 18, traces [op, wrapped], as
// initia-registry lists the wrapped INIT of every minievm rollup. The devnet creates the
// token at genesis (evm.Launch).
func wrappedAsset(c *Chain, a bridge.RegistryAsset) (asset, bool) {
	if c.evm == nil || !strings.HasPrefix(a.Base, "l2/") || len(a.Traces) != 1 || a.Traces[0].Type != "op" {
		return asset{}, false
	}
	origin := a.Traces[0].Counterparty.BaseDenom
	_, display := tokenUnits(origin, origin)
	sym := strings.ToUpper(display)
	addr := evm.WrappedAddress(a.Base, evm.RemoteDecimals)
	base := evm.WrappedDenom(a.Base)
	out := newAsset(base, sym, sym, sym, fmt.Sprintf("bridged %s wrapped to %d decimals by the ERC20Wrapper", origin, evm.LocalDecimals),
		denomUnit(base, 0), denomUnit(sym, evm.LocalDecimals))
	out.TypeAsset, out.Address = "erc20", addr.Hex()
	op := a.Traces[0]
	out.Traces = []registryfile.Trace{op, {
		Chain:        registryfile.TraceChain{Contract: evm.WrapperAddress.Hex()},
		Counterparty: registryfile.TraceCounterparty{BaseDenom: a.Base, ChainID: c.Spec.ChainID, ChainName: c.Spec.name()},
		Provider:     "Decimal Wrapper", Type: "wrapped"}}
	return out, true
}

// registryDocs are the network's registry entries in file order: per chain a chain.json
// (with, when bridged, op_bridge_id, op_denoms, ibc_channels, ibc_capabilities and
// executor_uri) and an assetlist.json (genesis tokens, then the bridge's one-hop traced
// assets, then on an EVM rollup the wrapped 18-decimal tokens of its OPinit coins, then the
// vouchers that reach a rollup through the L1 by packet forwarding, see forwardedVouchers);
// and with LayerZero on, the Ethereum chain (ethereum-devnet) and the L1's OFT asset.
func (n *Network) registryDocs() ([]registryfile.Chain, []registryfile.AssetList) {
	var forwarded map[string][]asset
	if n.bridges != nil {
		forwarded = n.forwardedVouchers()
	}
	var chains []registryfile.Chain
	var lists []registryfile.AssetList
	for _, c := range n.chains {
		assets := genesisAssets(c)
		if n.bridges != nil {
			cm, _ := n.bridges.wiring.Chain(c.Spec.ChainID)
			for _, a := range cm.Registry.Assets {
				assets = append(assets, bridgedAsset(a))
			}
			for _, a := range cm.Registry.Assets {
				if w, ok := wrappedAsset(c, a); ok {
					assets = append(assets, w)
				}
			}
			assets = append(assets, forwarded[c.Spec.ChainID]...)
		}
		if c.Spec.Kind == KindL1 && n.cfg.LayerZero {
			assets = append(assets, l1LZAsset())
		}
		if a, ok := n.lzRollupAsset(c); ok {
			assets = append(assets, a)
		}
		chains = append(chains, n.chainDoc(c))
		lists = append(lists, registryfile.AssetList{Schema: "../assetlist.schema.json", ChainName: c.Spec.name(), Assets: uniqueAssets(assets)})
	}
	if n.cfg.LayerZero {
		chains = append(chains, lzChainJSON(n.lz.eth.url))
		l1Name, l1ID := "", ""
		for _, c := range n.chains {
			if c.Spec.Kind == KindL1 {
				l1Name, l1ID = c.Spec.name(), c.Spec.ChainID
				break
			}
		}
		lists = append(lists, lzAssetlist(l1Name, l1ID))
	}
	return chains, lists
}

// WriteRegistry writes the initia-registry directory of the network (registryDocs).
func (n *Network) WriteRegistry(dir string) error {
	chains, lists := n.registryDocs()
	for i, c := range chains {
		if err := registryfile.WriteChain(dir, c); err != nil {
			return fmt.Errorf("registry %s: %w", c.ChainID, err)
		}
		if err := registryfile.WriteAssetList(dir, lists[i]); err != nil {
			return fmt.Errorf("registry %s: %w", c.ChainID, err)
		}
	}
	return nil
}

// uniqueAssets keeps the first entry of every base (a genesis token is not listed again
// as a bridged one).
func uniqueAssets(in []asset) []asset {
	out := []asset{}
	have := map[string]bool{}
	for _, a := range in {
		if have[a.Base] {
			continue
		}
		have[a.Base] = true
		out = append(out, a)
	}
	return out
}
