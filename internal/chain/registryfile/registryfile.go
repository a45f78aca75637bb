// Package registryfile holds the initia-registry file formats (chain.json, assetlist.json,
// _IBC/*.json) as the files are written, and reads and writes registry directories. The
// devnet writes its registry with these types and the router's loader reads registries with
// them, so writer and reader cannot drift apart.
//
// Member names and JSON shapes are facts of the public initia-registry
// (initia-labs/initia-registry) plus a few rollgate extensions the router reads
// (metadata.ibc_capabilities, metadata.layerzero, an asset's layerzero). Members are declared
// in the byte order of their JSON names, the order the devnet's files have always had, so
// encoding a value gives those files byte for byte. Members a reader must accept in more
// than one shape stay undecoded (evm_chain_id as number or string: json.RawMessage; an IBC
// channel's version as string or ICS-29 object: json.RawMessage; gas prices: json.Number),
// and unknown members are ignored, so a real registry's files decode whole.
package registryfile

import (
	"encoding/json"
)

// Chain is a chain.json.
type Chain struct {
	Schema       string          `json:"$schema"`
	APIs         APIs            `json:"apis"`
	Bech32Prefix string          `json:"bech32_prefix,omitempty"`
	ChainID      string          `json:"chain_id"`
	ChainName    string          `json:"chain_name"`
	ChainType    string          `json:"chain_type,omitempty"`
	EVMChainID   json.RawMessage `json:"evm_chain_id,omitempty"`
	Fees         *Fees           `json:"fees,omitempty"`
	// Hidden chains are left out of InterwovenKit's pickers.
	Hidden      bool      `json:"hidden,omitempty"`
	Images      []Image   `json:"images,omitempty"`
	KeyAlgos    []string  `json:"key_algos,omitempty"`
	LogoURIs    *LogoURIs `json:"logo_URIs,omitempty"`
	Metadata    Metadata  `json:"metadata"`
	NetworkType string    `json:"network_type"`
	PrettyName  string    `json:"pretty_name"`
	Slip44      int       `json:"slip44,omitempty"`
}

// APIs lists a chain's endpoints by kind; a nil list is left out, an empty one written as [].
type APIs struct {
	GRPC             []Endpoint `json:"grpc,omitzero"`
	Indexer          []Endpoint `json:"indexer,omitzero"`
	JSONRPC          []Endpoint `json:"json-rpc,omitzero"`
	JSONRPCWebsocket []Endpoint `json:"json-rpc-websocket,omitzero"`
	REST             []Endpoint `json:"rest,omitzero"`
	RPC              []Endpoint `json:"rpc,omitzero"`
}

// Endpoint is one apis entry.
type Endpoint struct {
	Address  string `json:"address"`
	Provider string `json:"provider,omitempty"`
}

// Fees is chain.json's fees.
type Fees struct {
	FeeTokens []FeeToken `json:"fee_tokens"`
}

// FeeToken is a fee_tokens entry. Prices stay the decimal text of the file; an absent tier
// is "" and stays absent when written.
type FeeToken struct {
	Denom            string      `json:"denom"`
	FixedMinGasPrice json.Number `json:"fixed_min_gas_price,omitempty"`
	LowGasPrice      json.Number `json:"low_gas_price,omitempty"`
	AverageGasPrice  json.Number `json:"average_gas_price,omitempty"`
	HighGasPrice     json.Number `json:"high_gas_price,omitempty"`
}

// Image is an images entry of a chain or asset.
type Image struct {
	PNG string `json:"png,omitempty"`
	SVG string `json:"svg,omitempty"`
}

// LogoURIs are a chain's or asset's logo_URIs.
type LogoURIs struct {
	PNG string `json:"png,omitempty"`
	SVG string `json:"svg,omitempty"`
}

// URI is the PNG logo, else the SVG one ("" when neither is given).
func (l LogoURIs) URI() string {
	if l.PNG != "" {
		return l.PNG
	}
	return l.SVG
}

// Metadata is chain.json's metadata: the registry's Initia members and rollgate's extensions.
type Metadata struct {
	Assetlist string `json:"assetlist,omitempty"`
	// CosmosModuleSupport is named as in Skip's Chain; absent means not offered.
	CosmosModuleSupport *CosmosModuleSupport `json:"cosmos_module_support,omitempty"`
	ExecutorURI         string               `json:"executor_uri,omitempty"`
	// IBCCapabilities (rollgate extension) says what the chain's transfer stack supports.
	IBCCapabilities *IBCCapabilities `json:"ibc_capabilities,omitempty"`
	IBCChannels     []IBCChannel     `json:"ibc_channels,omitzero"`
	IsL1            bool             `json:"is_l1,omitempty"`
	// LayerZero (rollgate extension) is the chain's LayerZero endpoint.
	LayerZero  *LayerZeroEndpoint `json:"layerzero,omitempty"`
	Minitia    *Minitia           `json:"minitia,omitempty"`
	OpBridgeID string             `json:"op_bridge_id,omitempty"`
	OpDenoms   []string           `json:"op_denoms,omitzero"`
}

// CosmosModuleSupport says whether the chain runs x/authz and x/feegrant.
type CosmosModuleSupport struct {
	Authz    bool `json:"authz"`
	Feegrant bool `json:"feegrant"`
}

// IBCCapabilities are pointers so a reader tells "false" from "not said".
type IBCCapabilities struct {
	IBCHooks *bool `json:"cosmos_ibc_hooks,omitempty"`
	Memo     *bool `json:"cosmos_memo,omitempty"`
	PFM      *bool `json:"cosmos_pfm,omitempty"`
}

// IBCChannel is one metadata.ibc_channels entry. Version is a plain version string or an
// ICS-29 fee-wrapped object; see AppVersion.
type IBCChannel struct {
	ChainID   string          `json:"chain_id"`
	PortID    string          `json:"port_id"`
	ChannelID string          `json:"channel_id"`
	Version   json.RawMessage `json:"version"`
}

// StringVersion is a plain channel version as the member's JSON text.
func StringVersion(v string) json.RawMessage {
	b, _ := json.Marshal(v) // a string always encodes
	return b
}

// AppVersion is the channel's application version: the plain string, or an ICS-29 object's
// app_version; "" for any other shape, which a reader treats as unknown rather than an error.
func (c IBCChannel) AppVersion() string {
	var s string
	if json.Unmarshal(c.Version, &s) == nil {
		return s
	}
	var w struct {
		AppVersion string `json:"app_version"`
	}
	if json.Unmarshal(c.Version, &w) == nil {
		return w.AppVersion
	}
	return ""
}

// LayerZeroEndpoint is metadata.layerzero.
type LayerZeroEndpoint struct {
	EndpointID uint32 `json:"endpoint_id"`
	// OPinitComposer is the LayerZero composer on this chain (an L1) whose lz_compose turns
	// an OFT that arrives for it into an OPinit deposit to a rollup (rollgate extension).
	OPinitComposer string `json:"opinit_composer,omitempty"`
}

// Minitia is metadata.minitia of a rollup: the VM (minievm, minimove, miniwasm) and the
// app's version.
type Minitia struct {
	Type    string `json:"type"`
	Version string `json:"version"`
}

// AssetList is an assetlist.json.
type AssetList struct {
	Schema    string  `json:"$schema"`
	Assets    []Asset `json:"assets"`
	ChainName string  `json:"chain_name"`
}

// AssetListEntries is an assetlist.json with its entries left undecoded, so a tolerant
// reader decodes them one by one and skips a malformed one alone.
type AssetListEntries struct {
	ChainName string            `json:"chain_name"`
	Assets    []json.RawMessage `json:"assets"`
}

// Asset is one assetlist entry.
type Asset struct {
	Address     string      `json:"address,omitempty"`
	Base        string      `json:"base"`
	CoingeckoID string      `json:"coingecko_id,omitempty"`
	DenomUnits  []DenomUnit `json:"denom_units"`
	Description string      `json:"description"`
	Display     string      `json:"display"`
	Hidden      bool        `json:"hidden,omitempty"`
	Images      []Image     `json:"images"`
	// LayerZero (rollgate extension) is the asset's OFT deployment.
	LayerZero    *LayerZeroAsset `json:"layerzero,omitempty"`
	LogoURIs     LogoURIs        `json:"logo_URIs"`
	Name         string          `json:"name"`
	OracleSymbol string          `json:"oracle_symbol,omitempty"`
	Symbol       string          `json:"symbol"`
	TokenType    string          `json:"token_type,omitempty"`
	// Traces run from the origin to this asset: the last one says how it got here.
	Traces    []Trace `json:"traces,omitempty"`
	TypeAsset string  `json:"type_asset,omitempty"`
}

// DenomUnit is a denom_units entry.
type DenomUnit struct {
	Denom    string `json:"denom"`
	Exponent int    `json:"exponent"`
}

// LayerZeroAsset is an asset's OFT (or OFT adapter, which NeedsApproval) contract.
type LayerZeroAsset struct {
	NeedsApproval bool   `json:"needs_approval,omitempty"`
	OFTAddress    string `json:"oft_address"`
}

// Trace is an assetlist trace: an "ibc" or "op" hop, minievm's "wrapped" ERC20Wrapper hop
// (Chain.Contract over Counterparty.BaseDenom on the same chain), or a "bridge" such as
// LayerZero (Provider).
type Trace struct {
	Type         string            `json:"type"`
	Counterparty TraceCounterparty `json:"counterparty"`
	Chain        TraceChain        `json:"chain"`
	Provider     string            `json:"provider,omitempty"`
}

// TraceCounterparty is the side a trace comes from.
type TraceCounterparty struct {
	ChainName string `json:"chain_name"`
	ChainID   string `json:"chain_id"`
	BaseDenom string `json:"base_denom"`
	ChannelID string `json:"channel_id,omitempty"`
}

// TraceChain is the asset's own side of a trace.
type TraceChain struct {
	ChannelID string `json:"channel_id,omitempty"`
	Path      string `json:"path,omitempty"`
	BridgeID  string `json:"bridge_id,omitempty"`
	Contract  string `json:"contract,omitempty"`
}

// sortedTrace is a trace with members in byte order of their names.
type sortedTrace struct {
	Chain        TraceChain         `json:"chain"`
	Counterparty sortedCounterparty `json:"counterparty"`
	Provider     string             `json:"provider,omitempty"`
	Type         string             `json:"type"`
}

type sortedCounterparty struct {
	BaseDenom string `json:"base_denom"`
	ChainID   string `json:"chain_id"`
	ChainName string `json:"chain_name"`
	ChannelID string `json:"channel_id,omitempty"`
}

// MarshalJSON writes ibc and op hops in initia-registry's member order (type, counterparty,
// chain) and every other trace with its members sorted by name, as the devnet has always
// written its wrapped and LayerZero traces.
func (t Trace) MarshalJSON() ([]byte, error) {
	if t.Type == "ibc" || t.Type == "op" {
		type plain Trace // no MarshalJSON: the declared order
		return json.Marshal(plain(t))
	}
	cp := t.Counterparty
	return json.Marshal(sortedTrace{Chain: t.Chain, Provider: t.Provider, Type: t.Type,
		Counterparty: sortedCounterparty{BaseDenom: cp.BaseDenom, ChainID: cp.ChainID, ChainName: cp.ChainName, ChannelID: cp.ChannelID}})
}

// IBCPair is an _IBC/<chain>-<chain>.json file: channels between two chains, both ends named.
type IBCPair struct {
	Schema   string           `json:"$schema,omitempty"`
	Chain1   IBCPairChain     `json:"chain_1"`
	Chain2   IBCPairChain     `json:"chain_2"`
	Channels []IBCPairChannel `json:"channels"`
}

// IBCPairChain is one chain of an IBCPair.
type IBCPairChain struct {
	ChainName    string `json:"chain_name"`
	ClientID     string `json:"client_id,omitempty"`
	ConnectionID string `json:"connection_id,omitempty"`
}

// IBCPairChannel is one channel of an IBCPair, by its two ends.
type IBCPairChannel struct {
	Chain1   IBCPairEnd `json:"chain_1"`
	Chain2   IBCPairEnd `json:"chain_2"`
	Ordering string     `json:"ordering,omitempty"`
	Version  string     `json:"version"`
	Tags     *IBCTags   `json:"tags,omitempty"`
}

// IBCPairEnd is a channel end.
type IBCPairEnd struct {
	ChannelID string `json:"channel_id"`
	PortID    string `json:"port_id"`
}

// IBCTags are a pair channel's tags.
type IBCTags struct {
	Preferred bool   `json:"preferred,omitempty"`
	Status    string `json:"status,omitempty"`
}
