// Package registry loads the network the router knows about from a directory in the
// initia-registry layout (`<chain_name>/chain.json`, `<chain_name>/assetlist.json`, optional
// `_IBC/*.json` channel pairs) and keeps it fresh from the chains' REST endpoints.
//
// A *Registry is immutable once built: Refresh builds a new one and Live swaps it in
// atomically, so request handlers read a consistent snapshot without locks. Denoms are
// checked against the real formulas (`ibc/` SHA-256 of the trace path, `l2/` SHA3-256 of
// bridge id ‖ L1 denom) at load time, so a registry that disagrees with the chains fails
// loudly instead of producing routes that cannot execute.
package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Chain types as the Skip API names them.
const (
	ChainTypeCosmos = "cosmos"
	ChainTypeEVM    = "evm"
)

// Registry is one immutable snapshot of the known network.
type Registry struct {
	// Chains sorted by chain id.
	Chains []*Chain
	byID   map[string]*Chain
	byName map[string]*Chain
}

// Chain is one chain of the registry.
type Chain struct {
	Name         string
	PrettyName   string
	ID           string
	Type         string // ChainTypeCosmos or ChainTypeEVM
	EVMChainID   string // decimal; the EVM rollups' and EVM chains' numeric id
	Bech32Prefix string
	Testnet      bool
	LogoURI      string

	L1          bool   // the Initia L1 (metadata.is_l1)
	BridgeID    uint64 // OPinit bridge id of a rollup (metadata.op_bridge_id), 0 otherwise
	MinitiaType string // minievm | minimove | miniwasm
	OPDenoms    []string
	ExecutorURI string
	// OPFinalization is the bridge's finalization period learnt by Refresh; it means something
	// only when OPFinalizationKnown (a devnet bridge may really finalize at once).
	OPFinalization      time.Duration
	OPFinalizationKnown bool

	PFM   bool // packet-forward middleware on this chain's receive path
	Hooks bool // IBC hooks
	Memo  bool // ICS-20 memo supported

	LZEndpointID uint32 // LayerZero endpoint id, 0 when the chain has none

	// Authz and Feegrant say whether the chain runs the x/authz and x/feegrant modules, as the
	// registry states it (metadata.cosmos_module_support); false when it does not say.
	Authz, Feegrant bool

	RPC, REST, JSONRPC []string
	FeeTokens          []FeeToken

	// Channels are the ICS-20 ("transfer" port) channels, sorted by channel id.
	Channels []Channel
	// NFTChannels are the ICS-721 channel ends (metadata.ibc_channels whose version names
	// ics721: port nft-transfer on Move and EVM chains, wasm.<ics721 contract> on Wasm
	// chains), in the registry's order. /nft sends over them; only this end's port and id
	// are needed, so the counterparty id is not resolved.
	NFTChannels []Channel
	// Assets sorted by denom.
	Assets []*Asset
	assets map[string]*Asset
}

// FeeToken is a gas token with its price tiers (decimal strings, empty when unknown).
type FeeToken struct {
	Denom                   string
	Low, Average, High, Min string
}

// Channel is one ICS-20 channel end on its chain.
type Channel struct {
	Port                string
	ID                  string
	CounterpartyChainID string
	CounterpartyPort    string
	CounterpartyID      string // empty when the other end is unknown (then unusable)
	Version             string
	// State is the on-chain channel state learnt by Refresh ("STATE_OPEN", ...); empty = not checked.
	State string
}

// Usable reports whether transfers may be routed over the channel.
func (c Channel) Usable() bool {
	return c.CounterpartyID != "" && (c.State == "" || c.State == "STATE_OPEN")
}

// Asset is one fungible asset on one chain.
type Asset struct {
	ChainID     string
	Denom       string
	Symbol      string
	Name        string
	Description string
	CoingeckoID string
	LogoURI     string
	Decimals    int
	// Path is the full ICS-20 path of the denom ("transfer/channel-0/uatom"), or the
	// denom itself for a token that is native here.
	Path string
	// Trace is the port/channel part of Path ("" for native tokens).
	Trace         string
	OriginChainID string
	OriginDenom   string
	// OP is set for an OPinit-bridged token on a rollup (trace type "op").
	OP *OPTrace
	// LZ is set for a LayerZero OFT asset.
	LZ *LZInfo
	// TokenContract is the ERC-20 address of an EVM-chain token ("" for the native coin).
	TokenContract string
	IsEVM         bool
}

// OPTrace ties a rollup's `l2/` token to its L1 denom.
type OPTrace struct {
	BridgeID  uint64
	L1ChainID string
	L1Denom   string
}

// LZInfo describes a LayerZero OFT deployment of an asset and its peer on another chain.
type LZInfo struct {
	OFT         string // OFT (or OFT adapter) contract address on this chain
	PeerChainID string
	PeerDenom   string
	// NeedsApproval is true for an OFT adapter in front of an existing ERC-20, which must be
	// allowed to pull the tokens first.
	NeedsApproval bool
}

// Chain returns the chain with the chain id, or nil.
func (r *Registry) Chain(id string) *Chain { return r.byID[id] }

// ChainByName returns the chain with the registry chain_name, or nil.
func (r *Registry) ChainByName(name string) *Chain { return r.byName[name] }

// Asset returns the asset with the denom on this chain, or nil. EVM addresses match
// case-insensitively.
func (c *Chain) Asset(denom string) *Asset {
	if a, ok := c.assets[denom]; ok {
		return a
	}
	if strings.HasPrefix(denom, "0x") || strings.HasPrefix(denom, "0X") {
		return c.assets[strings.ToLower(denom)]
	}
	return nil
}

// Channel returns the transfer channel with the id on this chain.
func (c *Chain) Channel(id string) (Channel, bool) {
	for _, ch := range c.Channels {
		if ch.ID == id {
			return ch, true
		}
	}
	return Channel{}, false
}

// IsInitia reports whether the chain is the Initia L1 or one of its rollups.
func (c *Chain) IsInitia() bool { return c.L1 || c.BridgeID != 0 || c.MinitiaType != "" }

// ---- file formats -------------------------------------------------------------------------

type endpoint struct {
	Address string `json:"address"`
}

type chainFile struct {
	ChainName    string          `json:"chain_name"`
	PrettyName   string          `json:"pretty_name"`
	ChainID      string          `json:"chain_id"`
	ChainType    string          `json:"chain_type"`
	EVMChainID   json.RawMessage `json:"evm_chain_id"`
	Bech32Prefix string          `json:"bech32_prefix"`
	NetworkType  string          `json:"network_type"`
	APIs         struct {
		RPC     []endpoint `json:"rpc"`
		REST    []endpoint `json:"rest"`
		JSONRPC []endpoint `json:"json-rpc"`
	} `json:"apis"`
	Fees struct {
		FeeTokens []struct {
			Denom            string      `json:"denom"`
			FixedMinGasPrice json.Number `json:"fixed_min_gas_price"`
			LowGasPrice      json.Number `json:"low_gas_price"`
			AverageGasPrice  json.Number `json:"average_gas_price"`
			HighGasPrice     json.Number `json:"high_gas_price"`
		} `json:"fee_tokens"`
	} `json:"fees"`
	LogoURIs struct {
		PNG string `json:"png"`
		SVG string `json:"svg"`
	} `json:"logo_URIs"`
	Metadata struct {
		IsL1        bool     `json:"is_l1"`
		OPBridgeID  string   `json:"op_bridge_id"`
		OPDenoms    []string `json:"op_denoms"`
		ExecutorURI string   `json:"executor_uri"`
		IBCChannels []struct {
			ChainID   string          `json:"chain_id"`
			PortID    string          `json:"port_id"`
			ChannelID string          `json:"channel_id"`
			Version   json.RawMessage `json:"version"`
		} `json:"ibc_channels"`
		Minitia *struct {
			Type    string `json:"type"`
			Version string `json:"version"`
		} `json:"minitia"`
		// Extensions (rollgate): explicit capabilities and LayerZero endpoint.
		IBCCapabilities *struct {
			CosmosPFM      *bool `json:"cosmos_pfm"`
			CosmosIBCHooks *bool `json:"cosmos_ibc_hooks"`
			CosmosMemo     *bool `json:"cosmos_memo"`
		} `json:"ibc_capabilities"`
		LayerZero *struct {
			EndpointID uint32 `json:"endpoint_id"`
		} `json:"layerzero"`
		// Named as in Skip's Chain; absent means not offered.
		CosmosModuleSupport *struct {
			Authz    bool `json:"authz"`
			Feegrant bool `json:"feegrant"`
		} `json:"cosmos_module_support"`
	} `json:"metadata"`
}

type assetListFile struct {
	ChainName string      `json:"chain_name"`
	Assets    []assetFile `json:"assets"`
}

type assetFile struct {
	Description string `json:"description"`
	DenomUnits  []struct {
		Denom    string `json:"denom"`
		Exponent int    `json:"exponent"`
	} `json:"denom_units"`
	Base        string `json:"base"`
	Display     string `json:"display"`
	Name        string `json:"name"`
	Symbol      string `json:"symbol"`
	TypeAsset   string `json:"type_asset"`
	Address     string `json:"address"`
	CoingeckoID string `json:"coingecko_id"`
	LogoURIs    struct {
		PNG string `json:"png"`
		SVG string `json:"svg"`
	} `json:"logo_URIs"`
	Traces []struct {
		Type         string `json:"type"`
		Provider     string `json:"provider"`
		Counterparty struct {
			ChainName string `json:"chain_name"`
			ChainID   string `json:"chain_id"`
			BaseDenom string `json:"base_denom"`
			ChannelID string `json:"channel_id"`
		} `json:"counterparty"`
		Chain struct {
			ChannelID string `json:"channel_id"`
			Path      string `json:"path"`
			BridgeID  string `json:"bridge_id"`
		} `json:"chain"`
	} `json:"traces"`
	// Extension (rollgate): LayerZero OFT deployment of this asset.
	LayerZero *struct {
		OFTAddress    string `json:"oft_address"`
		NeedsApproval bool   `json:"needs_approval"`
	} `json:"layerzero"`
}

type ibcPairFile struct {
	Chain1 struct {
		ChainName string `json:"chain_name"`
	} `json:"chain_1"`
	Chain2 struct {
		ChainName string `json:"chain_name"`
	} `json:"chain_2"`
	Channels []struct {
		Chain1 struct {
			ChannelID string `json:"channel_id"`
			PortID    string `json:"port_id"`
		} `json:"chain_1"`
		Chain2 struct {
			ChannelID string `json:"channel_id"`
			PortID    string `json:"port_id"`
		} `json:"chain_2"`
		Version string `json:"version"`
	} `json:"channels"`
}

// ---- loading ------------------------------------------------------------------------------

// Load reads a registry directory: every subdirectory holding a chain.json is a chain, its
// assetlist.json (optional) its assets, and `_IBC/*.json` (optional) explicit channel pairs.
func Load(dir string) (*Registry, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	var chains []*Chain
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), "_") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		cdir := filepath.Join(dir, e.Name())
		raw, err := os.ReadFile(filepath.Join(cdir, "chain.json"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("registry: %w", err)
		}
		c, err := parseChain(raw)
		if err != nil {
			return nil, fmt.Errorf("registry: %s/chain.json: %w", e.Name(), err)
		}
		raw, err = os.ReadFile(filepath.Join(cdir, "assetlist.json"))
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("registry: %w", err)
		default:
			if err := parseAssets(c, raw); err != nil {
				return nil, fmt.Errorf("registry: %s/assetlist.json: %w", e.Name(), err)
			}
		}
		chains = append(chains, c)
	}
	var pairs []ibcPairFile
	ibcFiles, _ := filepath.Glob(filepath.Join(dir, "_IBC", "*.json"))
	sort.Strings(ibcFiles)
	for _, f := range ibcFiles {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("registry: %w", err)
		}
		var p ibcPairFile
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("registry: %s: %w", filepath.Base(f), err)
		}
		pairs = append(pairs, p)
	}
	return build(chains, pairs)
}

func parseChain(raw []byte) (*Chain, error) {
	var f chainFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, err
	}
	if f.ChainID == "" || f.ChainName == "" {
		return nil, errors.New("chain_id and chain_name are required")
	}
	c := &Chain{
		Name: f.ChainName, PrettyName: f.PrettyName, ID: f.ChainID, Type: f.ChainType,
		Bech32Prefix: f.Bech32Prefix, Testnet: f.NetworkType != "" && f.NetworkType != "mainnet",
		L1: f.Metadata.IsL1, OPDenoms: f.Metadata.OPDenoms, ExecutorURI: f.Metadata.ExecutorURI,
	}
	if c.PrettyName == "" {
		c.PrettyName = c.Name
	}
	if c.Type == "" {
		c.Type = ChainTypeCosmos
	}
	if c.Type != ChainTypeCosmos && c.Type != ChainTypeEVM {
		return nil, fmt.Errorf("chain_type %q: want cosmos or evm", c.Type)
	}
	if len(f.EVMChainID) > 0 && string(f.EVMChainID) != "null" {
		c.EVMChainID = strings.Trim(string(f.EVMChainID), `"`)
		if _, err := strconv.ParseUint(c.EVMChainID, 10, 64); err != nil {
			return nil, fmt.Errorf("evm_chain_id %s: %w", f.EVMChainID, err)
		}
	}
	if c.Type == ChainTypeEVM && c.EVMChainID == "" {
		c.EVMChainID = c.ID
	}
	if c.Type == ChainTypeCosmos && c.Bech32Prefix == "" {
		return nil, errors.New("bech32_prefix is required for a cosmos chain")
	}
	if f.Metadata.OPBridgeID != "" {
		id, err := strconv.ParseUint(f.Metadata.OPBridgeID, 10, 64)
		if err != nil || id == 0 {
			return nil, fmt.Errorf("metadata.op_bridge_id %q: want a positive integer", f.Metadata.OPBridgeID)
		}
		c.BridgeID = id
	}
	if f.Metadata.Minitia != nil {
		c.MinitiaType = f.Metadata.Minitia.Type
	}
	// Initia's L1 and rollups all run PFM, hooks and memos in their transfer stacks; other
	// chains must say so.
	c.PFM, c.Hooks, c.Memo = c.IsInitia(), c.IsInitia(), c.Type == ChainTypeCosmos
	if m := f.Metadata.CosmosModuleSupport; m != nil {
		c.Authz, c.Feegrant = m.Authz, m.Feegrant
	}
	if caps := f.Metadata.IBCCapabilities; caps != nil {
		if caps.CosmosPFM != nil {
			c.PFM = *caps.CosmosPFM
		}
		if caps.CosmosIBCHooks != nil {
			c.Hooks = *caps.CosmosIBCHooks
		}
		if caps.CosmosMemo != nil {
			c.Memo = *caps.CosmosMemo
		}
	}
	if f.Metadata.LayerZero != nil {
		c.LZEndpointID = f.Metadata.LayerZero.EndpointID
	}
	if f.LogoURIs.PNG != "" {
		c.LogoURI = f.LogoURIs.PNG
	} else {
		c.LogoURI = f.LogoURIs.SVG
	}
	for _, e := range f.APIs.RPC {
		c.RPC = append(c.RPC, e.Address)
	}
	for _, e := range f.APIs.REST {
		c.REST = append(c.REST, e.Address)
	}
	for _, e := range f.APIs.JSONRPC {
		c.JSONRPC = append(c.JSONRPC, e.Address)
	}
	for _, t := range f.Fees.FeeTokens {
		c.FeeTokens = append(c.FeeTokens, FeeToken{Denom: t.Denom, Low: t.LowGasPrice.String(),
			Average: t.AverageGasPrice.String(), High: t.HighGasPrice.String(), Min: t.FixedMinGasPrice.String()})
	}
	for _, ch := range f.Metadata.IBCChannels {
		if v := channelVersion(ch.Version); strings.Contains(v, "ics721") {
			c.NFTChannels = append(c.NFTChannels, Channel{Port: ch.PortID, ID: ch.ChannelID, CounterpartyChainID: ch.ChainID, Version: v})
			continue
		}
		if ch.PortID != "transfer" {
			continue
		}
		c.Channels = append(c.Channels, Channel{Port: ch.PortID, ID: ch.ChannelID,
			CounterpartyChainID: ch.ChainID, CounterpartyPort: "transfer", Version: channelVersion(ch.Version)})
	}
	return c, nil
}

// channelVersion accepts both plain ("ics20-1") and ICS-29 fee-wrapped version strings.
func channelVersion(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var w struct {
		AppVersion string `json:"app_version"`
	}
	if json.Unmarshal(raw, &w) == nil {
		return w.AppVersion
	}
	return ""
}

func parseAssets(c *Chain, raw []byte) error {
	var f assetListFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return err
	}
	for _, af := range f.Assets {
		if af.Base == "" {
			return errors.New("asset without base")
		}
		a := &Asset{ChainID: c.ID, Denom: af.Base, Symbol: af.Symbol, Name: af.Name,
			Description: af.Description, CoingeckoID: af.CoingeckoID, Path: af.Base}
		if af.LogoURIs.PNG != "" {
			a.LogoURI = af.LogoURIs.PNG
		} else {
			a.LogoURI = af.LogoURIs.SVG
		}
		for _, u := range af.DenomUnits {
			if u.Denom == af.Display {
				a.Decimals = u.Exponent
			}
		}
		if c.Type == ChainTypeEVM {
			a.IsEVM = true
			if strings.HasPrefix(af.Base, "0x") {
				a.TokenContract = af.Base
			}
		}
		for _, t := range af.Traces {
			switch t.Type {
			case "ibc":
				if t.Chain.Path == "" {
					return fmt.Errorf("%s: ibc trace without chain.path", af.Base)
				}
				if want := IBCDenom(t.Chain.Path); want != af.Base {
					return fmt.Errorf("%s: ibc trace path %q hashes to %s", af.Base, t.Chain.Path, want)
				}
				a.Path = t.Chain.Path
				a.Trace, _ = SplitPath(t.Chain.Path)
				a.OriginChainID, a.OriginDenom = t.Counterparty.ChainID, t.Counterparty.BaseDenom
			case "op":
				id, err := strconv.ParseUint(t.Chain.BridgeID, 10, 64)
				if err != nil {
					return fmt.Errorf("%s: op trace bridge_id %q: %w", af.Base, t.Chain.BridgeID, err)
				}
				if want := L2Denom(id, t.Counterparty.BaseDenom); want != af.Base {
					return fmt.Errorf("%s: op trace (bridge %d, %s) gives %s", af.Base, id, t.Counterparty.BaseDenom, want)
				}
				a.OP = &OPTrace{BridgeID: id, L1ChainID: t.Counterparty.ChainID, L1Denom: t.Counterparty.BaseDenom}
			case "bridge":
				if strings.EqualFold(t.Provider, "layerzero") && af.LayerZero != nil {
					a.LZ = &LZInfo{PeerChainID: t.Counterparty.ChainID, PeerDenom: t.Counterparty.BaseDenom}
				}
			}
		}
		if af.LayerZero != nil {
			if a.LZ == nil {
				a.LZ = &LZInfo{}
			}
			a.LZ.OFT = af.LayerZero.OFTAddress
			a.LZ.NeedsApproval = af.LayerZero.NeedsApproval
		}
		key := a.Denom
		if strings.HasPrefix(key, "0x") {
			key = strings.ToLower(key)
		}
		if c.assets == nil {
			c.assets = map[string]*Asset{}
		}
		if _, dup := c.assets[key]; dup {
			return fmt.Errorf("duplicate asset %s", a.Denom)
		}
		c.assets[key] = a
		c.Assets = append(c.Assets, a)
	}
	return nil
}

// build indexes the chains, pairs channel ends, links LayerZero peers and resolves origins.
func build(chains []*Chain, pairs []ibcPairFile) (*Registry, error) {
	r := &Registry{Chains: chains, byID: map[string]*Chain{}, byName: map[string]*Chain{}}
	sort.Slice(chains, func(i, j int) bool { return chains[i].ID < chains[j].ID })
	for _, c := range chains {
		if _, dup := r.byID[c.ID]; dup {
			return nil, fmt.Errorf("registry: duplicate chain id %s", c.ID)
		}
		r.byID[c.ID] = c
		r.byName[c.Name] = c
		if c.assets == nil {
			c.assets = map[string]*Asset{}
		}
	}
	// Explicit _IBC pairs first, then the metadata.ibc_channels lists of both ends.
	for _, p := range pairs {
		a, b := r.byName[p.Chain1.ChainName], r.byName[p.Chain2.ChainName]
		if a == nil || b == nil {
			continue
		}
		for _, ch := range p.Channels {
			if ch.Chain1.PortID != "transfer" || ch.Chain2.PortID != "transfer" {
				continue
			}
			upsertChannel(a, Channel{Port: "transfer", ID: ch.Chain1.ChannelID, CounterpartyChainID: b.ID,
				CounterpartyPort: "transfer", CounterpartyID: ch.Chain2.ChannelID, Version: ch.Version})
			upsertChannel(b, Channel{Port: "transfer", ID: ch.Chain2.ChannelID, CounterpartyChainID: a.ID,
				CounterpartyPort: "transfer", CounterpartyID: ch.Chain1.ChannelID, Version: ch.Version})
		}
	}
	for _, c := range chains {
		for i := range c.Channels {
			ch := &c.Channels[i]
			if ch.CounterpartyID != "" {
				continue
			}
			other := r.byID[ch.CounterpartyChainID]
			if other == nil {
				continue
			}
			var match []string
			for _, oc := range other.Channels {
				if oc.CounterpartyChainID == c.ID && oc.Port == "transfer" {
					match = append(match, oc.ID)
				}
			}
			// Only an unambiguous single pair can be matched without channel queries.
			if len(match) == 1 {
				ch.CounterpartyID = match[0]
			}
		}
		sort.Slice(c.Channels, func(i, j int) bool { return channelLess(c.Channels[i].ID, c.Channels[j].ID) })
		sort.Slice(c.Assets, func(i, j int) bool { return c.Assets[i].Denom < c.Assets[j].Denom })
	}
	for _, c := range chains {
		for _, a := range c.Assets {
			resolveOrigin(r, a)
		}
	}
	return r, nil
}

func upsertChannel(c *Chain, ch Channel) {
	for i := range c.Channels {
		if c.Channels[i].ID == ch.ID {
			c.Channels[i].CounterpartyID = ch.CounterpartyID
			c.Channels[i].CounterpartyChainID = ch.CounterpartyChainID
			return
		}
	}
	c.Channels = append(c.Channels, ch)
}

func channelLess(a, b string) bool {
	na, ea := strconv.Atoi(strings.TrimPrefix(a, "channel-"))
	nb, eb := strconv.Atoi(strings.TrimPrefix(b, "channel-"))
	if ea == nil && eb == nil {
		return na < nb
	}
	return a < b
}

// resolveOrigin follows ibc traces back to the asset's origin chain and denom.
func resolveOrigin(r *Registry, a *Asset) {
	if a.Trace == "" {
		a.OriginChainID, a.OriginDenom = a.ChainID, a.Denom
		return
	}
	chainID, denom := a.OriginChainID, a.OriginDenom
	for range 16 {
		c := r.byID[chainID]
		if c == nil {
			break
		}
		next := c.Asset(denom)
		if next == nil || next.Trace == "" {
			break
		}
		if next.OriginChainID == "" {
			break
		}
		chainID, denom = next.OriginChainID, next.OriginDenom
	}
	if chainID == "" {
		_, denom = SplitPath(a.Path)
	}
	a.OriginChainID, a.OriginDenom = chainID, denom
}
