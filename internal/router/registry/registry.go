// Package registry loads the network the router knows about from a directory in the
// initia-registry layout (`<chain_name>/chain.json`, `<chain_name>/assetlist.json`, optional
// `_IBC/*.json` channel pairs) and keeps it fresh from the chains' REST endpoints.
//
// A *Registry is immutable once built: Refresh builds a new one and Live swaps it in
// atomically, so request handlers read a consistent snapshot without locks. Denoms are
// checked against the real formulas (`ibc/` SHA-256 of the trace path, `l2/` SHA3-256 of
// bridge id ‖ L1 denom) at load time: an entry that disagrees with them, or that this package
// does not understand, is skipped with one warning naming its file and entry, so one odd
// entry of a published registry never keeps the router from serving the rest, and never
// becomes a route that cannot execute.
//
// The registry as Initia publishes it (initia-labs/initia-registry, `mainnets/`, `testnets/`)
// lists the EVM rollups' assets as minievm's 18-decimal ERC-20 wrapper tokens (`evm/<address>`,
// trace type "wrapped" after the op or ibc hop that brought the 6-decimal coin in). Such an
// asset carries a Wrap; the coin it wraps is kept as an unlisted asset of the same chain so
// the route graph can reach it (see Chain.Unlisted).
package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/chain/registryfile"
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
	// Hidden is the entry's optional `hidden` flag (InterwovenKit leaves hidden chains out of
	// its pickers); false when the registry does not say.
	Hidden bool

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
	// LZOPinitComposer is the LayerZero composer whose lz_compose makes an OPinit deposit of
	// what arrives for it ("" when the chain has none): a LayerZero hop into this chain and
	// the deposit after it are then one transaction.
	LZOPinitComposer string

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
	// Assets sorted by denom: the registry's listed assets (and those Refresh learns).
	Assets []*Asset
	// Unlisted are coins the chain holds that the registry does not list but that its
	// wrapped assets wrap (a minievm rollup's `l2/` INIT under `evm/<address>` INIT), sorted by
	// denom. Asset resolves them; listings (/v2/fungible/assets) leave them out.
	Unlisted []*Asset
	assets   map[string]*Asset
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
	// Wrap is set for an 18-decimal token of minievm's ERC20Wrapper (trace type "wrapped").
	Wrap *Wrap
	// Hidden is the entry's optional `hidden` flag; false when the registry does not say.
	Hidden bool
	// Unlisted marks a coin kept only because a listed asset wraps it (Chain.Unlisted).
	Unlisted bool
}

// Wrap ties a wrapper token (`evm/<address>`, Asset.Denom) to the coin it wraps on the same
// minievm chain. minievm's ERC20Wrapper (initia-labs/minievm@f68c852:
// x/evm/contracts/erc20_wrapper/ERC20Wrapper.sol) mints the local token for the remote coin
// with toLocal and burns it back with toRemote, scaling amounts by 10^(local−remote decimals).
type Wrap struct {
	// Contract is the wrapper contract (the trace's chain.contract), 0x-hex as the registry
	// writes it.
	Contract string
	// RemoteDenom is the wrapped coin on this chain (the trace's counterparty.base_denom):
	// the OP-bridged `l2/…` or IBC `ibc/…` denom.
	RemoteDenom string
	// RemoteDecimals are the wrapped coin's decimals: those of the listed asset, else of the
	// asset it was bridged from; LocalDecimals (the wrapper token's, from its denom_units)
	// are larger.
	RemoteDecimals, LocalDecimals int
	// remote is the coin as the wrapped hop's predecessor describes it, until build links it.
	remote *Asset
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

// ---- loading ------------------------------------------------------------------------------

// Load reads a registry directory, logging skipped entries to slog.Default(); see LoadLogged.
func Load(dir string) (*Registry, error) { return LoadLogged(dir, slog.Default()) }

// LoadLogged reads a registry directory: every subdirectory holding a chain.json is a chain,
// its assetlist.json (optional) its assets, and `_IBC/*.json` (optional) explicit channel
// pairs. An entry it cannot use (a malformed chain.json, asset or channel pair, a trace that
// disagrees with the denom formulas or of a type it does not know, a duplicate) is skipped
// with one warning naming the file and the entry; only an unreadable directory or a registry
// without any usable chain is an error.
func LoadLogged(dir string, log *slog.Logger) (*Registry, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	names, err := registryfile.ChainDirs(dir)
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	var chains []*Chain
	ids := map[string]string{}
	for _, name := range names {
		cdir := filepath.Join(dir, name)
		file := name + "/" + registryfile.ChainFile
		raw, err := os.ReadFile(filepath.Join(cdir, registryfile.ChainFile))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("registry: %w", err)
		}
		c, err := parseChain(raw)
		if err != nil {
			log.Warn("registry: chain skipped", "file", file, "err", err)
			continue
		}
		if prev, dup := ids[c.ID]; dup {
			log.Warn("registry: chain skipped", "file", file, "chain", c.ID, "err", "chain_id already defined by "+prev)
			continue
		}
		ids[c.ID] = file
		raw, err = os.ReadFile(filepath.Join(cdir, registryfile.AssetListFile))
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("registry: %w", err)
		default:
			parseAssets(c, raw, name+"/"+registryfile.AssetListFile, log)
		}
		chains = append(chains, c)
	}
	if len(chains) == 0 {
		return nil, fmt.Errorf("registry: no usable chain.json under %s", dir)
	}
	var pairs []registryfile.IBCPair
	for _, f := range registryfile.IBCPairFiles(dir) {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("registry: %w", err)
		}
		p, err := decodeTolerant[registryfile.IBCPair](raw, unreadPair)
		if err != nil {
			log.Warn("registry: channel pair skipped", "file", registryfile.IBCDir+"/"+filepath.Base(f), "err", err)
			continue
		}
		pairs = append(pairs, p)
	}
	r, err := build(chains, pairs)
	if err != nil {
		return nil, err
	}
	linkWraps(r, log)
	return r, nil
}

func parseChain(raw []byte) (*Chain, error) {
	f, err := decodeTolerant[registryfile.Chain](raw, unreadChain)
	if err != nil {
		return nil, err
	}
	if f.ChainID == "" || f.ChainName == "" {
		return nil, errors.New("chain_id and chain_name are required")
	}
	c := &Chain{
		Name: f.ChainName, PrettyName: f.PrettyName, ID: f.ChainID, Type: f.ChainType,
		Bech32Prefix: f.Bech32Prefix, Testnet: f.NetworkType != "" && f.NetworkType != "mainnet",
		L1: f.Metadata.IsL1, OPDenoms: f.Metadata.OpDenoms, ExecutorURI: f.Metadata.ExecutorURI, Hidden: f.Hidden,
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
	if f.Metadata.OpBridgeID != "" {
		id, err := strconv.ParseUint(f.Metadata.OpBridgeID, 10, 64)
		if err != nil || id == 0 {
			return nil, fmt.Errorf("metadata.op_bridge_id %q: want a positive integer", f.Metadata.OpBridgeID)
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
		if caps.PFM != nil {
			c.PFM = *caps.PFM
		}
		if caps.IBCHooks != nil {
			c.Hooks = *caps.IBCHooks
		}
		if caps.Memo != nil {
			c.Memo = *caps.Memo
		}
	}
	if f.Metadata.LayerZero != nil {
		c.LZEndpointID = f.Metadata.LayerZero.EndpointID
		c.LZOPinitComposer = f.Metadata.LayerZero.OPinitComposer
	}
	if f.LogoURIs != nil {
		c.LogoURI = f.LogoURIs.URI()
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
	if f.Fees != nil {
		for _, t := range f.Fees.FeeTokens {
			c.FeeTokens = append(c.FeeTokens, FeeToken{Denom: t.Denom, Low: t.LowGasPrice.String(),
				Average: t.AverageGasPrice.String(), High: t.HighGasPrice.String(), Min: t.FixedMinGasPrice.String()})
		}
	}
	for _, ch := range f.Metadata.IBCChannels {
		if v := ch.AppVersion(); strings.Contains(v, "ics721") {
			c.NFTChannels = append(c.NFTChannels, Channel{Port: ch.PortID, ID: ch.ChannelID, CounterpartyChainID: ch.ChainID, Version: v})
			continue
		}
		if ch.PortID != "transfer" {
			continue
		}
		c.Channels = append(c.Channels, Channel{Port: ch.PortID, ID: ch.ChannelID,
			CounterpartyChainID: ch.ChainID, CounterpartyPort: "transfer", Version: ch.AppVersion()})
	}
	return c, nil
}

// parseAssets adds the assets of one assetlist.json to c, skipping (with a warning naming
// file and entry) every entry it cannot use.
func parseAssets(c *Chain, raw []byte, file string, log *slog.Logger) {
	var f registryfile.AssetListEntries
	if err := json.Unmarshal(raw, &f); err != nil {
		log.Warn("registry: asset list skipped", "file", file, "err", err)
		return
	}
	if c.assets == nil {
		c.assets = map[string]*Asset{}
	}
	for i, rawAsset := range f.Assets {
		af, err := decodeTolerant[registryfile.Asset](rawAsset, unreadAsset)
		if err != nil {
			log.Warn("registry: asset skipped", "file", file, "asset", entryName(i, rawAsset), "err", err)
			continue
		}
		a, err := parseAsset(c, af)
		if err == nil {
			if _, dup := c.assets[assetKey(a.Denom)]; dup {
				err = errors.New("duplicate asset")
			}
		}
		if err != nil {
			log.Warn("registry: asset skipped", "file", file, "asset", entryName(i, rawAsset), "err", err)
			continue
		}
		c.assets[assetKey(a.Denom)] = a
		c.Assets = append(c.Assets, a)
	}
}

// entryName names an asset entry in a warning: its base, else its position.
func entryName(i int, raw json.RawMessage) string {
	var b struct {
		Base any `json:"base"`
	}
	if json.Unmarshal(raw, &b) == nil {
		if s, ok := b.Base.(string); ok && s != "" {
			return s
		}
	}
	return fmt.Sprintf("assets[%d]", i)
}

func assetKey(denom string) string {
	if strings.HasPrefix(denom, "0x") || strings.HasPrefix(denom, "0X") {
		return strings.ToLower(denom)
	}
	return denom
}

// parseAsset reads one assetlist entry. Only the last trace says how the asset got to this
// chain (traces run from the origin); for a wrapped asset, the one before it says how the
// wrapped coin did.
func parseAsset(c *Chain, af registryfile.Asset) (*Asset, error) {
	if af.Base == "" {
		return nil, errors.New("asset without base")
	}
	a := &Asset{ChainID: c.ID, Denom: af.Base, Symbol: af.Symbol, Name: af.Name,
		Description: af.Description, CoingeckoID: af.CoingeckoID, Path: af.Base, Hidden: af.Hidden}
	a.LogoURI = af.LogoURIs.URI()
	found := af.Display == ""
	for _, u := range af.DenomUnits {
		if u.Exponent < 0 || u.Exponent > 77 {
			return nil, fmt.Errorf("denom unit %s: exponent %d", u.Denom, u.Exponent)
		}
		if u.Denom == af.Display {
			a.Decimals, found = u.Exponent, true
		}
	}
	if !found {
		return nil, fmt.Errorf("display %q is none of its denom_units", af.Display)
	}
	if c.Type == ChainTypeEVM {
		a.IsEVM = true
		if strings.HasPrefix(af.Base, "0x") {
			a.TokenContract = af.Base
		}
	}
	if n := len(af.Traces); n > 0 {
		last := af.Traces[n-1]
		switch last.Type {
		case "ibc", "op":
			if err := applyHop(a, last); err != nil {
				return nil, err
			}
		case "wrapped":
			w, err := parseWrap(c, a, af.Traces)
			if err != nil {
				return nil, err
			}
			a.Wrap = w
		case "bridge":
			if strings.EqualFold(last.Provider, "layerzero") && af.LayerZero != nil {
				a.LZ = &LZInfo{PeerChainID: last.Counterparty.ChainID, PeerDenom: last.Counterparty.BaseDenom}
			}
		default:
			return nil, fmt.Errorf("trace type %q is not one this router knows (ibc, op, wrapped, bridge)", last.Type)
		}
	}
	if af.LayerZero != nil {
		if a.LZ == nil {
			a.LZ = &LZInfo{}
		}
		a.LZ.OFT = af.LayerZero.OFTAddress
		a.LZ.NeedsApproval = af.LayerZero.NeedsApproval
	}
	return a, nil
}

// applyHop checks that an ibc or op hop gives a.Denom and records how.
func applyHop(a *Asset, t registryfile.Trace) error {
	switch t.Type {
	case "ibc":
		if t.Chain.Path == "" {
			return fmt.Errorf("%s: ibc trace without chain.path", a.Denom)
		}
		if want := IBCDenom(t.Chain.Path); want != a.Denom {
			return fmt.Errorf("%s: ibc trace path %q hashes to %s", a.Denom, t.Chain.Path, want)
		}
		a.Path = t.Chain.Path
		a.Trace, _ = SplitPath(t.Chain.Path)
		a.OriginChainID, a.OriginDenom = t.Counterparty.ChainID, t.Counterparty.BaseDenom
	case "op":
		id, err := strconv.ParseUint(t.Chain.BridgeID, 10, 64)
		if err != nil {
			return fmt.Errorf("%s: op trace bridge_id %q: %w", a.Denom, t.Chain.BridgeID, err)
		}
		if want := L2Denom(id, t.Counterparty.BaseDenom); want != a.Denom {
			return fmt.Errorf("%s: op trace (bridge %d, %s) gives %s", a.Denom, id, t.Counterparty.BaseDenom, want)
		}
		a.OP = &OPTrace{BridgeID: id, L1ChainID: t.Counterparty.ChainID, L1Denom: t.Counterparty.BaseDenom}
	default:
		return fmt.Errorf("%s: a %q hop cannot bring in a wrapped coin", a.Denom, t.Type)
	}
	return nil
}

// parseWrap reads a last "wrapped" hop: the counterparty is the coin on this same chain that
// the wrapper contract wraps, and the hop before it (if any) says how that coin got here.
func parseWrap(c *Chain, a *Asset, traces []registryfile.Trace) (*Wrap, error) {
	last := traces[len(traces)-1]
	cp := last.Counterparty
	if cp.BaseDenom == "" {
		return nil, errors.New("wrapped trace without counterparty.base_denom")
	}
	if (cp.ChainID != "" && cp.ChainID != c.ID) || (cp.ChainID == "" && cp.ChainName != c.Name) {
		return nil, fmt.Errorf("wrapped trace names chain %q: the wrapper converts on the asset's own chain", cp.ChainID+cp.ChainName)
	}
	if !isHexAddress(last.Chain.Contract) {
		return nil, fmt.Errorf("wrapped trace chain.contract %q is not a 0x address", last.Chain.Contract)
	}
	if cp.BaseDenom == a.Denom {
		return nil, errors.New("wrapped trace wraps the asset itself")
	}
	remote := &Asset{ChainID: c.ID, Denom: cp.BaseDenom, Path: cp.BaseDenom, Unlisted: true, Decimals: -1}
	if len(traces) > 1 {
		if err := applyHop(remote, traces[len(traces)-2]); err != nil {
			return nil, err
		}
	}
	return &Wrap{Contract: last.Chain.Contract, RemoteDenom: cp.BaseDenom, LocalDecimals: a.Decimals, remote: remote}, nil
}

func isHexAddress(s string) bool {
	h, ok := strings.CutPrefix(strings.ToLower(s), "0x")
	if !ok || len(h) != 40 {
		return false
	}
	for _, ch := range h {
		if (ch < '0' || ch > '9') && (ch < 'a' || ch > 'f') {
			return false
		}
	}
	return true
}

// linkWraps resolves every wrapped asset's coin once all chains are known: the listed asset
// when the chain lists the coin, else the coin its trace describes, kept as an unlisted asset
// with the decimals of the asset it was bridged from. A wrap whose coin's decimals cannot be
// known, or that would not scale up, is dropped with a warning: the asset stays listed but no
// route converts it.
func linkWraps(r *Registry, log *slog.Logger) {
	for _, c := range r.Chains {
		for _, a := range c.Assets {
			w := a.Wrap
			if w == nil || w.remote == nil {
				continue
			}
			spec := w.remote
			w.remote = nil
			remote := c.Asset(w.RemoteDenom)
			if remote == nil {
				remote = spec
				src := ""
				if spec.OP != nil {
					src = r.assetDecimals(spec.OP.L1ChainID, spec.OP.L1Denom, &remote.Decimals)
				} else if spec.Trace != "" {
					src = r.assetDecimals(spec.OriginChainID, spec.OriginDenom, &remote.Decimals)
				}
				if src != "" {
					remote.Symbol, remote.Name, remote.LogoURI, remote.CoingeckoID = a.Symbol, a.Name, a.LogoURI, a.CoingeckoID
				}
			}
			switch {
			case c.MinitiaType != "minievm":
				log.Warn("registry: wrapped asset not routable", "chain", c.Name, "asset", a.Denom, "err", "only minievm's ERC20Wrapper is modelled and "+c.ID+" is not a minievm rollup")
				a.Wrap = nil
				continue
			case remote.Decimals < 0:
				log.Warn("registry: wrapped asset not routable", "chain", c.Name, "asset", a.Denom,
					"err", "the decimals of the wrapped coin "+w.RemoteDenom+" are unknown: no listed asset describes it or its origin")
				a.Wrap = nil
				continue
			case remote.Decimals >= a.Decimals:
				log.Warn("registry: wrapped asset not routable", "chain", c.Name, "asset", a.Denom,
					"err", fmt.Sprintf("wrapper token has %d decimals, its coin %s %d: the wrapper only scales up", a.Decimals, w.RemoteDenom, remote.Decimals))
				a.Wrap = nil
				continue
			}
			w.RemoteDecimals = remote.Decimals
			if remote == spec && c.assets[assetKey(spec.Denom)] == nil {
				c.assets[assetKey(spec.Denom)] = spec
				c.Unlisted = append(c.Unlisted, spec)
			}
		}
		sort.Slice(c.Unlisted, func(i, j int) bool { return c.Unlisted[i].Denom < c.Unlisted[j].Denom })
		for _, u := range c.Unlisted {
			resolveOrigin(r, u)
		}
	}
}

// assetDecimals sets *dec to the decimals of the asset (chainID, denom) when the registry
// lists it, and returns the chain id ("" when unknown).
func (r *Registry) assetDecimals(chainID, denom string, dec *int) string {
	if c := r.Chain(chainID); c != nil {
		if a := c.Asset(denom); a != nil && !a.Unlisted {
			*dec = a.Decimals
			return chainID
		}
	}
	return ""
}

// build indexes the chains, pairs channel ends, links LayerZero peers and resolves origins.
func build(chains []*Chain, pairs []registryfile.IBCPair) (*Registry, error) {
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
