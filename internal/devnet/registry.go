package devnet

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rollgate/rollgate/internal/devnet/internal/bridge"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/evm"
)

// The initia-registry documents the network writes. Members are declared in the byte
// order of their JSON names, the order the files have always had (the router's committed
// copy, internal/router/registry/testdata/devnet, holds them byte for byte); members the
// bridge package types itself (ibc_channels, ibc/op traces) keep that package's order.

// chainJSON is a chain.json.
type chainJSON struct {
	Schema       string     `json:"$schema"`
	APIs         chainAPIs  `json:"apis"`
	Bech32Prefix string     `json:"bech32_prefix,omitempty"`
	ChainID      string     `json:"chain_id"`
	ChainName    string     `json:"chain_name"`
	ChainType    string     `json:"chain_type,omitempty"`
	EVMChainID   uint64     `json:"evm_chain_id,omitempty"`
	Fees         *chainFees `json:"fees,omitempty"`
	KeyAlgos     []string   `json:"key_algos,omitempty"`
	Metadata     chainMeta  `json:"metadata"`
	NetworkType  string     `json:"network_type"`
	PrettyName   string     `json:"pretty_name"`
	Slip44       int        `json:"slip44,omitempty"`
}

// chainAPIs lists a chain's endpoints; a nil list is left out, an empty one written as [].
type chainAPIs struct {
	GRPC    []apiAddr `json:"grpc,omitzero"`
	JSONRPC []apiAddr `json:"json-rpc,omitzero"`
	REST    []apiAddr `json:"rest,omitzero"`
	RPC     []apiAddr `json:"rpc,omitzero"`
}

type apiAddr struct {
	Address string `json:"address"`
}

type chainFees struct {
	FeeTokens []feeToken `json:"fee_tokens"`
}

// feeToken is a chain.json fee_tokens entry. The devnet's engine enforces no minimum gas
// price: CheckTx and DeliverTx accept a tx with no fee at all, and any fee a tx does carry
// is only moved to the fee collector. So every tier of every fee token is 0,
// fixed_min_gas_price included: the registry tells wallets and the router what the chains
// require (nothing) rather than a price they do not enforce.
type feeToken struct {
	Denom            string  `json:"denom"`
	FixedMinGasPrice float64 `json:"fixed_min_gas_price"`
	LowGasPrice      float64 `json:"low_gas_price"`
	AverageGasPrice  float64 `json:"average_gas_price"`
	HighGasPrice     float64 `json:"high_gas_price"`
}

// chainMeta is chain.json's metadata: the registry's own members and the bridge's.
type chainMeta struct {
	Assetlist       string                   `json:"assetlist,omitempty"`
	ExecutorURI     string                   `json:"executor_uri,omitempty"`
	IBCCapabilities *ibcCapabilities         `json:"ibc_capabilities,omitempty"`
	IBCChannels     []bridge.RegistryChannel `json:"ibc_channels,omitzero"`
	IsL1            bool                     `json:"is_l1,omitempty"`
	LayerZero       *lzEndpointID            `json:"layerzero,omitempty"`
	Minitia         *minitia                 `json:"minitia,omitempty"`
	OpBridgeID      string                   `json:"op_bridge_id,omitempty"`
	OpDenoms        []string                 `json:"op_denoms,omitzero"`
}

// ibcCapabilities is a rollgate registry extension the router reads: what the chain's
// transfer stack supports.
type ibcCapabilities struct {
	IBCHooks bool `json:"cosmos_ibc_hooks"`
	Memo     bool `json:"cosmos_memo"`
	PFM      bool `json:"cosmos_pfm"`
}

type lzEndpointID struct {
	EndpointID int `json:"endpoint_id"`
}

type minitia struct {
	Type    string `json:"type"`
	Version string `json:"version"`
}

// assetlist is an assetlist.json.
type assetlist struct {
	Schema    string  `json:"$schema"`
	Assets    []asset `json:"assets"`
	ChainName string  `json:"chain_name"`
}

// asset is one assetlist entry.
type asset struct {
	Address     string       `json:"address,omitempty"`
	Base        string       `json:"base"`
	DenomUnits  []denomUnit  `json:"denom_units"`
	Description string       `json:"description"`
	Display     string       `json:"display"`
	Images      []string     `json:"images"`
	LayerZero   *lzAsset     `json:"layerzero,omitempty"`
	LogoURIs    struct{}     `json:"logo_URIs"`
	Name        string       `json:"name"`
	Symbol      string       `json:"symbol"`
	Traces      []assetTrace `json:"traces,omitempty"`
	TypeAsset   string       `json:"type_asset,omitempty"`
}

type denomUnit struct {
	Denom    string `json:"denom"`
	Exponent int    `json:"exponent"`
}

type lzAsset struct {
	NeedsApproval bool   `json:"needs_approval,omitempty"`
	OFTAddress    string `json:"oft_address"`
}

// assetTrace is an assetlist trace: an IBC or OPinit hop as the bridge records it, or a
// LayerZero bridge.
type assetTrace struct {
	hop     *bridge.RegistryTrace
	lz      *lzTrace
	wrapped *wrappedTrace
}

func (t assetTrace) MarshalJSON() ([]byte, error) {
	if t.lz != nil {
		return json.Marshal(t.lz)
	}
	if t.wrapped != nil {
		return json.Marshal(t.wrapped)
	}
	return json.Marshal(t.hop)
}

// wrappedTrace is initia-registry's "wrapped" hop: minievm's ERC20Wrapper (chain.contract)
// over the 6-decimal bridged coin (counterparty.base_denom), as the real EVM rollups list
// their 18-decimal INIT (initia-labs/initia-registry mainnets/cabal/assetlist.json).
type wrappedTrace struct {
	Chain        wrappedChain        `json:"chain"`
	Counterparty wrappedCounterparty `json:"counterparty"`
	Provider     string              `json:"provider"`
	Type         string              `json:"type"`
}

type wrappedChain struct {
	Contract string `json:"contract"`
}

type wrappedCounterparty struct {
	BaseDenom string `json:"base_denom"`
	ChainID   string `json:"chain_id"`
	ChainName string `json:"chain_name"`
}

type lzTrace struct {
	Chain        struct{}       `json:"chain"`
	Counterparty lzCounterparty `json:"counterparty"`
	Provider     string         `json:"provider"`
	Type         string         `json:"type"`
}

type lzCounterparty struct {
	BaseDenom string `json:"base_denom"`
	ChainID   string `json:"chain_id"`
	ChainName string `json:"chain_name"`
}

// newAsset is an asset entry with no images and no logos.
func newAsset(base, display, name, symbol, description string, units ...denomUnit) asset {
	return asset{Base: base, Display: display, Name: name, Symbol: symbol, Description: description,
		DenomUnits: units, Images: []string{}}
}

// tokenUnits are the units of a token whose micro denom is base: "uusdc" has the display
// unit usdc at 6 decimals; a denom without the micro prefix is a single unit.
func tokenUnits(base, unit string) (units []denomUnit, display string) {
	if len(unit) > 1 && unit[0] == 'u' {
		return []denomUnit{{base, 0}, {unit[1:], 6}}, unit[1:]
	}
	return []denomUnit{{base, 0}}, unit
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
func (n *Network) chainDoc(c *Chain) chainJSON {
	e := c.Endpoints
	cfg := c.eng.Config()
	doc := chainJSON{
		Schema: "../chain.schema.json", ChainName: c.Spec.name(), PrettyName: prettyName(c.Spec.name()),
		ChainID: c.Spec.ChainID, Bech32Prefix: cfg.Bech32Prefix, NetworkType: "devnet",
		APIs: chainAPIs{RPC: []apiAddr{{e.RPC}}, REST: []apiAddr{{e.REST}}, GRPC: []apiAddr{}},
		// Initia chains sign with eth_secp256k1 keys (coin type 60); a chain with plain
		// Cosmos keys (the external hub) signs with secp256k1 under the Cosmos coin type.
		KeyAlgos: []string{"ethsecp256k1", "secp256k1"}, Slip44: 60,
		Fees: &chainFees{FeeTokens: []feeToken{{Denom: cfg.FeeDenom}}},
		Metadata: chainMeta{
			Assetlist:   "file://" + filepath.ToSlash(filepath.Join(c.Spec.name(), "assetlist.json")),
			OpDenoms:    []string{},
			IBCChannels: []bridge.RegistryChannel{},
		},
	}
	if cfg.CosmosKeys {
		doc.KeyAlgos, doc.Slip44 = []string{"secp256k1"}, 118
	}
	if e.JSONRPC != "" {
		doc.APIs.JSONRPC = []apiAddr{{e.JSONRPC}}
	}
	if c.Spec.Kind == KindL1 {
		doc.Metadata.IsL1 = true
		if n.cfg.LayerZero {
			doc.Metadata.LayerZero = &lzEndpointID{EndpointID: l1LZEndpoint}
		}
	} else if t := minitiaType(c.Spec.Kind); t != "" {
		doc.Metadata.Minitia = &minitia{Type: t, Version: cfg.AppVersion}
	}
	if c.evm != nil {
		doc.EVMChainID = c.evm.EVMChainID(c.Spec.ChainID)
	}
	if n.bridges != nil {
		cm, _ := n.bridges.wiring.Chain(c.Spec.ChainID)
		r := cm.Registry
		doc.Metadata.IBCCapabilities = &ibcCapabilities{IBCHooks: r.Hooks, Memo: true, PFM: true}
		doc.Metadata.IBCChannels = append([]bridge.RegistryChannel{}, r.IBCChannels...)
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
			units, display = []denomUnit{{coin.Denom, 0}, {"gas", 18}}, "gas"
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
	for i := range a.Traces {
		out.Traces = append(out.Traces, assetTrace{hop: &a.Traces[i]})
	}
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
		denomUnit{base, 0}, denomUnit{sym, evm.LocalDecimals})
	out.TypeAsset, out.Address = "erc20", addr.Hex()
	op := a.Traces[0]
	out.Traces = []assetTrace{{hop: &op}, {wrapped: &wrappedTrace{
		Chain:        wrappedChain{Contract: evm.WrapperAddress.Hex()},
		Counterparty: wrappedCounterparty{BaseDenom: a.Base, ChainID: c.Spec.ChainID, ChainName: c.Spec.name()},
		Provider:     "Decimal Wrapper", Type: "wrapped"}}}
	return out, true
}

// WriteRegistry writes the initia-registry directory of the network: per chain a
// chain.json (with, when bridged, op_bridge_id, op_denoms, ibc_channels, ibc_capabilities
// and executor_uri) and an assetlist.json (genesis tokens, then the bridge's one-hop
// traced assets, then on an EVM rollup the wrapped 18-decimal tokens of its OPinit coins, then the vouchers that reach a rollup through the L1 by packet forwarding,
// see forwardedVouchers); and with LayerZero on, the registry-only EVM peer and the L1's
// OFT asset.
func (n *Network) WriteRegistry(dir string) error {
	var forwarded map[string][]asset
	if n.bridges != nil {
		forwarded = n.forwardedVouchers()
	}
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
		name := c.Spec.name()
		if err := writeJSON(filepath.Join(dir, name, "chain.json"), n.chainDoc(c)); err != nil {
			return fmt.Errorf("registry %s: %w", c.Spec.ChainID, err)
		}
		doc := assetlist{Schema: "../assetlist.schema.json", ChainName: name, Assets: uniqueAssets(assets)}
		if err := writeJSON(filepath.Join(dir, name, "assetlist.json"), doc); err != nil {
			return fmt.Errorf("registry %s: %w", c.Spec.ChainID, err)
		}
	}
	if n.cfg.LayerZero {
		if err := writeJSON(filepath.Join(dir, lzChainName, "chain.json"), lzChainJSON()); err != nil {
			return err
		}
		for _, c := range n.chains {
			if c.Spec.Kind == KindL1 {
				return writeJSON(filepath.Join(dir, lzChainName, "assetlist.json"), lzAssetlist(c.Spec.name(), c.Spec.ChainID))
			}
		}
		return writeJSON(filepath.Join(dir, lzChainName, "assetlist.json"), lzAssetlist("", ""))
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
