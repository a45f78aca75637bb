// Package route is the router's route engine: a graph whose nodes are (chain, denom) pairs
// of the registry and whose edges are the bridges' (router/bridge: ICS-20 transfers,
// including unwinding an `ibc/` voucher along its trace, OPinit deposits and withdrawals and
// LayerZero OFT sends from EVM and Move chains) plus minievm's wrapper-token conversions, searched
// best-first for the best route. Each bridge renders its own hops as Skip operations.
//
// The engine offers only hops the msgs package can build messages for: no swaps (no venue on
// the devnet executes one yet) and no LayerZero sends from chains other than EVM chains, Move
// chains and minievm rollups.
//
// Only denoms the registry lists are nodes: like Skip, the router does not propose denoms it
// has never seen, and it keeps the graph small enough to build once per registry snapshot and
// search in well under a millisecond. Routes are ranked by amount out (higher first), then
// number of transactions, then estimated duration, then number of hops.
package route

import (
	"strings"

	"github.com/rollgate/rollgate/internal/router/bridge"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// Machine reasons carried in error details[0].
const (
	ReasonNoRoute          = "NO_ROUTE"
	ReasonUnknownChain     = "UNKNOWN_CHAIN"
	ReasonUnknownAsset     = "UNKNOWN_ASSET"
	ReasonInvalidAmount    = "INVALID_AMOUNT"
	ReasonAmountTooLow     = "AMOUNT_TOO_LOW"
	ReasonAmountTooHigh    = "AMOUNT_TOO_HIGH"
	ReasonMissingField     = "MISSING_FIELD"
	ReasonUnsupportedField = "UNSUPPORTED_FIELD"
	ReasonInvalidBridge    = "INVALID_BRIDGE"
)

// Config holds the estimates the engine cannot learn from chains. Zero values take the
// documented defaults (see docs/router-api.md).
type Config struct {
	// Per-hop duration estimates in seconds.
	IBCSeconds        int `json:"ibc_seconds"`         // default 30: relay of one ICS-20 packet
	OPDepositSeconds  int `json:"op_deposit_seconds"`  // default 15: executor relays the deposit after L1 inclusion
	OPWithdrawSeconds int `json:"op_withdraw_seconds"` // default 604800: used when the bridge's finalization period is unknown (no Refresh yet)
	LayerZeroSeconds  int `json:"layer_zero_seconds"`  // default 180
	BankSendSeconds   int `json:"bank_send_seconds"`   // default 6: one block
	// LayerZeroFee is the messaging fee (in the source chain's fee token base unit) per source
	// chain id; it is charged on top of the amount (FEE_BEHAVIOR_ADDITIONAL).
	LayerZeroFee map[string]string `json:"layer_zero_fee"`
	// DefaultAllowMultiTx applies when the request does not set allow_multi_tx (Skip: false).
	DefaultAllowMultiTx bool `json:"default_allow_multi_tx"`
	// MaxHops bounds the search (default 6).
	MaxHops int `json:"max_hops"`
}

func (c Config) withDefaults() Config {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.IBCSeconds, 30)
	def(&c.OPDepositSeconds, 15)
	def(&c.OPWithdrawSeconds, 604800)
	def(&c.LayerZeroSeconds, 180)
	def(&c.BankSendSeconds, 6)
	def(&c.MaxHops, 6)
	return c
}

// edgeKind is a bridge's edge kind (router/bridge), or one of the graph's own conversions.
type edgeKind = bridge.Kind

const (
	kindIBC      = bridge.KindIBC
	kindDeposit  = bridge.KindDeposit
	kindWithdraw = bridge.KindWithdraw
	kindLZ       = bridge.KindLayerZero
)

const (
	// kindWrap converts a minievm chain's bridged coin into its ERC20Wrapper token (toLocal) and
	// kindUnwrap back (toRemote). Neither is an operation of its own: no operation variant the
	// clients know can show one (docs/router-api.md), so render folds a wrap into the hop that
	// brought the coin and an unwrap into the hop that takes it away.
	kindWrap = bridge.NumKinds + iota
	kindUnwrap
)

type edge struct {
	kind edgeKind
	to   int32
	secs int // the hop's estimated duration
	// via is what the bridge renders the hop from (unset for wraps).
	via bridge.Via
}

type node struct {
	chain *registry.Chain
	asset *registry.Asset
	out   []edge
}

// Graph is the routing graph of one registry snapshot; build it once per snapshot.
type Graph struct {
	reg   *registry.Registry
	cfg   Config
	nodes []node
	index map[string]int32
	// listed is the number of nodes that are listed registry assets; real adds the coins the
	// registry keeps unlisted because a wrapper token wraps them (registry.Chain.Unlisted).
	// The nodes after real are in-between vouchers of packet-forward hops, never endpoints.
	listed, real int32
}

func nodeKey(chainID, denom string) string {
	if strings.HasPrefix(denom, "0x") || strings.HasPrefix(denom, "0X") {
		denom = strings.ToLower(denom)
	}
	return chainID + "\x00" + denom
}

// Registry is the snapshot the graph was built from.
func (g *Graph) Registry() *registry.Registry { return g.reg }

// Node is the chain and asset of the node at (chainID, denom): what bridges read while the
// graph adds their edges.
func (g *Graph) Node(chainID, denom string) (*registry.Chain, *registry.Asset, bool) {
	i, ok := g.index[nodeKey(chainID, denom)]
	if !ok {
		return nil, nil, false
	}
	return g.nodes[i].chain, g.nodes[i].asset, true
}

// Estimates are the configured durations and fees bridges put on their edges.
func (g *Graph) Estimates() bridge.Estimates {
	return bridge.Estimates{IBCSeconds: g.cfg.IBCSeconds, OPDepositSeconds: g.cfg.OPDepositSeconds,
		OPWithdrawSeconds: g.cfg.OPWithdrawSeconds, LayerZeroSeconds: g.cfg.LayerZeroSeconds, LayerZeroFee: g.cfg.LayerZeroFee}
}

// Build constructs the graph of reg.
func Build(reg *registry.Registry, cfg Config) *Graph {
	g := &Graph{reg: reg, cfg: cfg.withDefaults(), index: map[string]int32{}}
	for _, c := range reg.Chains {
		for _, a := range c.Assets {
			g.index[nodeKey(c.ID, a.Denom)] = int32(len(g.nodes))
			g.nodes = append(g.nodes, node{chain: c, asset: a})
		}
	}
	g.listed = int32(len(g.nodes))
	for _, c := range reg.Chains {
		for _, a := range c.Unlisted {
			g.index[nodeKey(c.ID, a.Denom)] = int32(len(g.nodes))
			g.nodes = append(g.nodes, node{chain: c, asset: a})
		}
	}
	g.real = int32(len(g.nodes))
	for i := range g.nodes {
		n := &g.nodes[i]
		c, a := n.chain, n.asset
		for _, b := range bridge.All {
			for _, e := range b.Edges(g, c, a) {
				from, ok1 := g.index[nodeKey(e.From.ChainID, e.From.Denom)]
				to, ok2 := g.index[nodeKey(e.To.ChainID, e.To.Denom)]
				if ok1 && ok2 {
					addUnique(&g.nodes[from], edge{kind: e.Kind, to: to, secs: e.Seconds, via: e.Via})
				}
			}
		}
		if w := a.Wrap; w != nil && c.MinitiaType == "minievm" && w.LocalDecimals > w.RemoteDecimals {
			if remote, ok := g.index[nodeKey(c.ID, w.RemoteDenom)]; ok {
				n.out = append(n.out, edge{kind: kindUnwrap, to: remote})
				g.nodes[remote].out = append(g.nodes[remote].out, edge{kind: kindWrap, to: int32(i)})
			}
		}
	}
	g.addForwardingNodes()
	return g
}

func addUnique(n *node, e edge) {
	for _, o := range n.out {
		if o.kind == e.kind && o.to == e.to {
			return
		}
	}
	n.out = append(n.out, e)
}

// Lookup resolves a (chain, denom) pair to its registry chain and asset, with the API errors
// for unknown ones.
func (g *Graph) Lookup(chainField, chainID, denomField, denom string) (*registry.Chain, *registry.Asset, *Error) {
	if chainID == "" {
		return nil, nil, Invalidf(ReasonMissingField, "%s is required", chainField)
	}
	if denom == "" {
		return nil, nil, Invalidf(ReasonMissingField, "%s is required", denomField)
	}
	c := g.reg.Chain(chainID)
	if c == nil {
		return nil, nil, Unknownf(ReasonUnknownChain, "unknown chain %q in %s", chainID, chainField)
	}
	a := c.Asset(denom)
	if a == nil {
		return nil, nil, Unknownf(ReasonUnknownAsset, "unknown %s %q on chain %s", denomField, denom, chainID)
	}
	return c, a, nil
}

// addForwardingNodes adds intermediate-only nodes for vouchers a registry does not list but
// that a packet-forward hop passes through (e.g. a rollup's `l2/` INIT on its way over the L1
// to another rollup): (B, denom) exists when some listed asset arrives there over IBC, B runs
// PFM, and one more hop from B lands on a listed denom. Such nodes are never endpoints, which
// keeps the graph bounded to one extra hop per listed pair.
func (g *Graph) addForwardingNodes() {
	listed := g.real
	// leadsOn reports whether a node with these edges takes the voucher anywhere but back
	// to the source it came from (which only closes a cycle for that source).
	leadsOn := func(outs []edge, from int32) bool {
		for _, e := range outs {
			if e.to != from {
				return true
			}
		}
		return false
	}
	for i := range listed {
		c, a := g.nodes[i].chain, g.nodes[i].asset
		if c.Type != registry.ChainTypeCosmos {
			continue
		}
		for _, ch := range c.Channels {
			if !ch.Usable() {
				continue
			}
			mid := g.reg.Chain(ch.CounterpartyChainID)
			if mid == nil || mid.Type != registry.ChainTypeCosmos || !mid.PFM {
				continue
			}
			path := registry.ReceivedPath(a.Path, ch.Port, ch.ID, ch.CounterpartyPort, ch.CounterpartyID)
			denom := registry.IBCDenom(path)
			key := nodeKey(mid.ID, denom)
			if at, ok := g.index[key]; ok {
				// A listed asset already has its regular edges. An in-between node made
				// when another source met the same voucher first (a token's home chain and
				// a chain unwinding its voucher of it both land it there) serves this
				// source too.
				if at >= listed && leadsOn(g.nodes[at].out, i) {
					g.nodes[i].out = append(g.nodes[i].out, g.forward(at, ch.Port, ch.ID))
				}
				continue
			}
			// Every usable channel counts, the way back included: it is how another source
			// sharing the node unwinds home through the hub.
			var outs []edge
			for _, ch2 := range mid.Channels {
				if !ch2.Usable() {
					continue
				}
				p2 := registry.ReceivedPath(path, ch2.Port, ch2.ID, ch2.CounterpartyPort, ch2.CounterpartyID)
				if to, ok := g.index[nodeKey(ch2.CounterpartyChainID, registry.IBCDenom(p2))]; ok && to < listed {
					outs = append(outs, g.forward(to, ch2.Port, ch2.ID))
				}
			}
			if !leadsOn(outs, i) {
				continue
			}
			trace, _ := registry.SplitPath(path)
			va := &registry.Asset{ChainID: mid.ID, Denom: denom, Path: path, Trace: trace, Symbol: a.Symbol, Decimals: a.Decimals,
				OriginChainID: a.OriginChainID, OriginDenom: a.OriginDenom}
			g.index[key] = int32(len(g.nodes))
			g.nodes = append(g.nodes, node{chain: mid, asset: va, out: outs})
			g.nodes[i].out = append(g.nodes[i].out, g.forward(int32(len(g.nodes)-1), ch.Port, ch.ID))
		}
	}
}

// forward is an ICS-20 edge to or from an in-between voucher over port/channel.
func (g *Graph) forward(to int32, port, channel string) edge {
	return edge{kind: kindIBC, to: to, secs: g.cfg.IBCSeconds, via: bridge.Via{Kind: bridge.KindIBC, Port: port, Channel: channel, Seconds: g.cfg.IBCSeconds}}
}
