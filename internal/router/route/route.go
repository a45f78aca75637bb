// Package route is the router's route engine: a graph whose nodes are (chain, denom) pairs
// of the registry and whose edges are ICS-20 transfers (including unwinding an `ibc/`
// voucher along its trace), OPinit deposits and withdrawals, LayerZero OFT sends and swaps on
// configured venues, searched best-first for the best route.
//
// Only denoms the registry lists are nodes: like Skip, the router does not propose denoms it
// has never seen, and it keeps the graph small enough to build once per registry snapshot and
// search in well under a millisecond. Routes are ranked by amount out (higher first), then
// number of transactions, then estimated duration, then number of hops.
package route

import (
	"container/heap"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/holiman/uint256"

	"github.com/rollgate/rollgate/internal/apierr"
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
	ReasonBadPrice         = "BAD_PRICE"
)

// Config holds the estimates the engine cannot learn from chains. Zero values take the
// documented defaults (see docs/router-api.md).
type Config struct {
	// Per-hop duration estimates in seconds.
	IBCSeconds        int `json:"ibc_seconds"`         // default 30: relay of one ICS-20 packet
	OPDepositSeconds  int `json:"op_deposit_seconds"`  // default 15: executor relays the deposit after L1 inclusion
	OPWithdrawSeconds int `json:"op_withdraw_seconds"` // default 604800: used when the bridge's finalization period is unknown (no Refresh yet)
	LayerZeroSeconds  int `json:"layer_zero_seconds"`  // default 180
	SwapSeconds       int `json:"swap_seconds"`        // default 0: the swap runs in the same tx as the previous hop
	BankSendSeconds   int `json:"bank_send_seconds"`   // default 6: one block
	// LayerZeroFee is the messaging fee (in the source chain's fee token base unit) per source
	// chain id; it is charged on top of the amount (FEE_BEHAVIOR_ADDITIONAL).
	LayerZeroFee map[string]string `json:"layer_zero_fee"`
	// DefaultAllowMultiTx applies when the request does not set allow_multi_tx (Skip: false).
	DefaultAllowMultiTx bool `json:"default_allow_multi_tx"`
	// MaxHops bounds the search (default 6).
	MaxHops int `json:"max_hops"`
	// Venues are the configured swap venues.
	Venues []Venue `json:"venues"`
}

// Venue is a configured swap venue with constant-product pools.
type Venue struct {
	Name    string `json:"name"`
	ChainID string `json:"chain_id"`
	Pools   []Pool `json:"pools"`
}

// Pool is a constant-product pool; reserves are base-unit decimal strings, FeeBps the swap fee.
type Pool struct {
	ID       string `json:"id"`
	DenomA   string `json:"denom_a"`
	DenomB   string `json:"denom_b"`
	ReserveA string `json:"reserve_a"`
	ReserveB string `json:"reserve_b"`
	FeeBps   int    `json:"fee_bps"`
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

type edgeKind uint8

const (
	kindIBC edgeKind = iota
	kindDeposit
	kindWithdraw
	kindLZ
	kindSwap
)

type edge struct {
	kind edgeKind
	to   int32
	// IBC: the channel on the from chain.
	port, channel string
	bridgeID      uint64
	venue         *Venue
	pool          *Pool
	rA, rB        *uint256.Int // swap reserves, in→out
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
	// listed is the number of nodes that are registry assets; the nodes after them are
	// in-between vouchers of packet-forward hops, never endpoints.
	listed int32
}

func nodeKey(chainID, denom string) string {
	if strings.HasPrefix(denom, "0x") || strings.HasPrefix(denom, "0X") {
		denom = strings.ToLower(denom)
	}
	return chainID + "\x00" + denom
}

// Registry is the snapshot the graph was built from.
func (g *Graph) Registry() *registry.Registry { return g.reg }

// Build constructs the graph of reg.
func Build(reg *registry.Registry, cfg Config) *Graph {
	g := &Graph{reg: reg, cfg: cfg.withDefaults(), index: map[string]int32{}}
	for _, c := range reg.Chains {
		for _, a := range c.Assets {
			g.index[nodeKey(c.ID, a.Denom)] = int32(len(g.nodes))
			g.nodes = append(g.nodes, node{chain: c, asset: a})
		}
	}
	for i := range g.nodes {
		n := &g.nodes[i]
		c, a := n.chain, n.asset
		if c.Type == registry.ChainTypeCosmos {
			for _, ch := range c.Channels {
				if !ch.Usable() {
					continue
				}
				dst := reg.Chain(ch.CounterpartyChainID)
				if dst == nil || dst.Type != registry.ChainTypeCosmos {
					continue
				}
				path := registry.ReceivedPath(a.Path, ch.Port, ch.ID, ch.CounterpartyPort, ch.CounterpartyID)
				if to, ok := g.index[nodeKey(dst.ID, registry.IBCDenom(path))]; ok {
					n.out = append(n.out, edge{kind: kindIBC, to: to, port: ch.Port, channel: ch.ID})
				}
			}
		}
		if a.OP != nil && c.BridgeID == a.OP.BridgeID {
			if l1, ok := g.index[nodeKey(a.OP.L1ChainID, a.OP.L1Denom)]; ok {
				n.out = append(n.out, edge{kind: kindWithdraw, to: l1, bridgeID: a.OP.BridgeID})
				g.nodes[l1].out = append(g.nodes[l1].out, edge{kind: kindDeposit, to: int32(i), bridgeID: a.OP.BridgeID})
			}
		}
		if a.LZ != nil && a.LZ.OFT != "" && a.LZ.PeerChainID != "" && c.LZEndpointID != 0 {
			if to, ok := g.index[nodeKey(a.LZ.PeerChainID, a.LZ.PeerDenom)]; ok {
				peer := &g.nodes[to]
				if peer.chain.LZEndpointID != 0 && peer.asset.LZ != nil && peer.asset.LZ.OFT != "" {
					addUnique(n, edge{kind: kindLZ, to: to})
					addUnique(peer, edge{kind: kindLZ, to: int32(i)})
				}
			}
		}
	}
	g.addForwardingNodes()
	for vi := range g.cfg.Venues {
		v := &g.cfg.Venues[vi]
		for pi := range v.Pools {
			p := &v.Pools[pi]
			ra, errA := uint256.FromDecimal(p.ReserveA)
			rb, errB := uint256.FromDecimal(p.ReserveB)
			ia, okA := g.index[nodeKey(v.ChainID, p.DenomA)]
			ib, okB := g.index[nodeKey(v.ChainID, p.DenomB)]
			if errA != nil || errB != nil || !okA || !okB || ra.IsZero() || rb.IsZero() {
				continue
			}
			g.nodes[ia].out = append(g.nodes[ia].out, edge{kind: kindSwap, to: ib, venue: v, pool: p, rA: ra, rB: rb})
			g.nodes[ib].out = append(g.nodes[ib].out, edge{kind: kindSwap, to: ia, venue: v, pool: p, rA: rb, rB: ra})
		}
	}
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

// ParseAmount parses a base-unit amount: a decimal integer, 1 ≤ amount < 2^256.
func ParseAmount(field, s string) (*uint256.Int, *apierr.Error) {
	if s == "" {
		return nil, apierr.BadRequest("%s is required", field).WithDetails(ReasonMissingField)
	}
	if strings.HasPrefix(s, "-") {
		if isDigits(s[1:]) {
			return nil, apierr.BadRequest("%s must be positive", field).WithDetails(ReasonAmountTooLow)
		}
		return nil, apierr.BadRequest("%s must be a base-unit integer", field).WithDetails(ReasonInvalidAmount)
	}
	if !isDigits(s) {
		return nil, apierr.BadRequest("%s must be a base-unit integer", field).WithDetails(ReasonInvalidAmount)
	}
	v, err := uint256.FromDecimal(s)
	if err != nil {
		return nil, apierr.BadRequest("%s exceeds 2^256-1", field).WithDetails(ReasonAmountTooHigh)
	}
	if v.IsZero() {
		return nil, apierr.BadRequest("%s must be positive", field).WithDetails(ReasonAmountTooLow)
	}
	return v, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Lookup resolves a (chain, denom) pair to its registry chain and asset, with the API errors
// for unknown ones.
func (g *Graph) Lookup(chainField, chainID, denomField, denom string) (*registry.Chain, *registry.Asset, *apierr.Error) {
	if chainID == "" {
		return nil, nil, apierr.BadRequest("%s is required", chainField).WithDetails(ReasonMissingField)
	}
	if denom == "" {
		return nil, nil, apierr.BadRequest("%s is required", denomField).WithDetails(ReasonMissingField)
	}
	c := g.reg.Chain(chainID)
	if c == nil {
		return nil, nil, apierr.NotFoundf("unknown chain %q in %s", chainID, chainField).WithDetails(ReasonUnknownChain)
	}
	a := c.Asset(denom)
	if a == nil {
		return nil, nil, apierr.NotFoundf("unknown %s %q on chain %s", denomField, denom, chainID).WithDetails(ReasonUnknownAsset)
	}
	return c, a, nil
}

// continuation says what the next hop may do without a new user transaction.
type continuation uint8

const (
	contNone    continuation = iota
	contForward              // after an ICS-20 hop into a PFM chain: a packet-forward memo
	contHook                 // after an OPinit deposit: a signed hook executed on the rollup
)

type label struct {
	node   int32
	cont   continuation
	hook   bool // the route already uses the op hook
	amount *uint256.Int
	txs    int
	secs   int
	hops   int
	prev   *label
	via    *edge
	seq    int
}

// better reports whether a ranks before b.
func better(a, b *label) bool {
	if c := a.amount.Cmp(b.amount); c != 0 {
		return c > 0
	}
	if a.txs != b.txs {
		return a.txs < b.txs
	}
	if a.secs != b.secs {
		return a.secs < b.secs
	}
	if a.hops != b.hops {
		return a.hops < b.hops
	}
	return a.seq < b.seq
}

type pq []*label

func (q pq) Len() int           { return len(q) }
func (q pq) Less(i, j int) bool { return better(q[i], q[j]) }
func (q pq) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *pq) Push(x any)        { *q = append(*q, x.(*label)) }
func (q *pq) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// maxLabels bounds the work of one search whatever the registry looks like.
const maxLabels = 50000

// Find computes the best route for req.
func (g *Graph) Find(req Request) (*Route, error) {
	amount, aerr := ParseAmount("amount_in", req.AmountIn)
	if aerr != nil {
		if req.AmountIn == "" && req.AmountOut != "" {
			return nil, apierr.BadRequest("exact-out routes (amount_out) are not supported; send amount_in").WithDetails(ReasonUnsupportedField)
		}
		return nil, aerr
	}
	srcChain, srcAsset, e := g.Lookup("source_asset_chain_id", req.SourceAssetChainID, "source_asset_denom", req.SourceAssetDenom)
	if e != nil {
		return nil, e
	}
	dstChain, dstAsset, e := g.Lookup("dest_asset_chain_id", req.DestAssetChainID, "dest_asset_denom", req.DestAssetDenom)
	if e != nil {
		return nil, e
	}
	allowed := map[edgeKind]bool{kindIBC: true, kindDeposit: true, kindWithdraw: req.IsOPWithdraw, kindLZ: true, kindSwap: req.AllowSwaps == nil || *req.AllowSwaps}
	if len(req.Bridges) > 0 {
		allowed[kindIBC], allowed[kindDeposit], allowed[kindWithdraw], allowed[kindLZ] = false, false, false, false
		for _, b := range req.Bridges {
			switch b {
			case BridgeIBC:
				allowed[kindIBC] = true
			case BridgeOPInit:
				allowed[kindDeposit], allowed[kindWithdraw] = true, req.IsOPWithdraw
			case BridgeLayerZero:
				allowed[kindLZ] = true
			case "AXELAR", "CCTP", "HYPERLANE", "GO_FAST", "STARGATE", "EUREKA", "CCTP_V2":
				// Known bridge types this router has no edges for.
			default:
				return nil, apierr.BadRequest("unknown bridge type %q", b).WithDetails(ReasonInvalidBridge)
			}
		}
	}
	multi := g.cfg.DefaultAllowMultiTx
	if req.AllowMultiTx != nil {
		multi = *req.AllowMultiTx
	}
	src, dst := g.index[nodeKey(srcChain.ID, srcAsset.Denom)], g.index[nodeKey(dstChain.ID, dstAsset.Denom)]

	if src == dst {
		if req.IsOPWithdraw {
			return nil, g.noRoute(req, "is_op_withdraw needs a rollup source and an L1 destination")
		}
		return g.sameChain(req, srcChain, srcAsset, amount), nil
	}
	if req.IsOPWithdraw && srcChain.BridgeID == 0 {
		return nil, g.noRoute(req, "is_op_withdraw needs a rollup source and an L1 destination")
	}

	found := g.search(req, src, dst, amount, allowed, multi)
	if found == nil {
		info := ""
		if !req.IsOPWithdraw && srcAsset.OP != nil && dstChain.ID == srcAsset.OP.L1ChainID && dstAsset.Denom == srcAsset.OP.L1Denom {
			info = "this token leaves the rollup through the OPinit bridge: set is_op_withdraw"
		} else if !multi && g.search(req, src, dst, amount, allowed, true) != nil {
			info = "no single-transaction route; set allow_multi_tx to accept a route needing several transactions"
		}
		return nil, g.noRoute(req, info)
	}
	return g.render(req, found), nil
}

// search is a best-first search from src to dst; nil when dst is unreachable.
func (g *Graph) search(req Request, src, dst int32, amount *uint256.Int, allowed map[edgeKind]bool, multi bool) *label {
	best := map[[3]int32]*label{}
	q := &pq{}
	seq := 0
	start := &label{node: src, amount: amount, seq: seq}
	heap.Push(q, start)
	var found *label
	for q.Len() > 0 && seq < maxLabels {
		l := heap.Pop(q).(*label)
		if l.node == dst {
			found = l
			break
		}
		k := [3]int32{l.node, int32(l.cont), b2i(l.hook)}
		if b, ok := best[k]; ok && b != l {
			continue
		}
		if l.hops >= g.cfg.MaxHops {
			continue
		}
		n := &g.nodes[l.node]
		for ei := range n.out {
			ed := &n.out[ei]
			if !allowed[ed.kind] {
				continue
			}
			// The "Lossless" option means the OPinit withdrawal is the first hop.
			if req.IsOPWithdraw && l.prev == nil && ed.kind != kindWithdraw {
				continue
			}
			nl := g.extend(l, ed)
			if nl == nil || (!multi && nl.txs > 1) {
				continue
			}
			seq++
			nl.seq = seq
			k := [3]int32{nl.node, int32(nl.cont), b2i(nl.hook)}
			if b, ok := best[k]; ok && !better(nl, b) {
				continue
			}
			best[k] = nl
			heap.Push(q, nl)
		}
	}
	return found
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

func (g *Graph) noRoute(req Request, info string) error {
	e := apierr.BadRequest("no route found from %s on %s to %s on %s", req.SourceAssetDenom, req.SourceAssetChainID,
		req.DestAssetDenom, req.DestAssetChainID).WithDetails(ReasonNoRoute)
	if info != "" {
		e = e.WithInfo(info)
	}
	return e
}

// extend applies one edge to a label, or returns nil when the hop cannot follow it.
func (g *Graph) extend(l *label, ed *edge) *label {
	from := &g.nodes[l.node]
	nl := &label{node: ed.to, amount: l.amount, txs: l.txs, secs: l.secs, hops: l.hops + 1, prev: l, via: ed, hook: l.hook}
	sameTx := false
	switch ed.kind {
	case kindIBC:
		// The hop rides in the previous hop's tx as a forward memo (PFM on this chain) or as
		// the rollup-side hook of a deposit.
		sameTx = l.cont == contForward || l.cont == contHook
		if to := g.nodes[ed.to].chain; to.PFM {
			nl.cont = contForward
		}
		nl.secs += g.cfg.IBCSeconds
	case kindDeposit:
		nl.cont = contHook
		nl.secs += g.cfg.OPDepositSeconds
		if l.hook {
			// Only one signed hook per route: a second deposit cannot continue in the same tx.
			nl.cont = contNone
		}
	case kindWithdraw:
		sameTx = l.cont == contHook
		secs := g.cfg.OPWithdrawSeconds
		if c := from.chain; c.OPFinalizationKnown || c.OPFinalization > 0 {
			secs = int(c.OPFinalization / time.Second)
		}
		nl.secs += secs
	case kindLZ:
		nl.secs += g.cfg.LayerZeroSeconds
	case kindSwap:
		out, _ := swapOut(l.amount, ed)
		if out == nil || out.IsZero() {
			return nil
		}
		nl.amount = out
		sameTx = l.prev == nil
		// A swap's output can leave in the same transaction (the swap entry point's post-swap
		// IBC transfer action).
		nl.cont = contForward
		nl.secs += g.cfg.SwapSeconds
	}
	switch {
	case l.prev == nil:
		nl.txs = 1
	case !sameTx:
		nl.txs++
	}
	if sameTx && l.cont == contHook {
		nl.hook = true
	}
	return nl
}

// swapOut is the constant-product output of in on the edge's pool, and the price impact.
func swapOut(in *uint256.Int, ed *edge) (*uint256.Int, *big.Rat) {
	fee := uint64(10000 - ed.pool.FeeBps)
	inFee := new(big.Int).Mul(in.ToBig(), new(big.Int).SetUint64(fee))
	num := new(big.Int).Mul(inFee, ed.rB.ToBig())
	den := new(big.Int).Add(new(big.Int).Mul(ed.rA.ToBig(), big.NewInt(10000)), inFee)
	out := new(big.Int).Quo(num, den)
	o, overflow := uint256.FromBig(out)
	if overflow {
		return nil, nil
	}
	// impact = 1 - (out/in) / (rB/rA)
	exec := new(big.Rat).SetFrac(out, in.ToBig())
	spot := new(big.Rat).SetFrac(ed.rB.ToBig(), ed.rA.ToBig())
	impact := new(big.Rat).Sub(big.NewRat(1, 1), new(big.Rat).Quo(exec, spot))
	return o, impact
}

func (g *Graph) sameChain(req Request, c *registry.Chain, a *registry.Asset, amount *uint256.Int) *Route {
	r := &Route{AmountIn: amount.Dec(), AmountOut: amount.Dec(), EstimatedAmountOut: amount.Dec(),
		SourceAssetDenom: a.Denom, SourceAssetChainID: c.ID, DestAssetDenom: a.Denom, DestAssetChainID: c.ID,
		Operations: []Operation{{BankSend: &BankSend{ChainID: c.ID, Denom: a.Denom}, AmountIn: amount.Dec(), AmountOut: amount.Dec()}},
		ChainIDs:   []string{c.ID}, RequiredChainAddresses: []string{c.ID, c.ID}, TxsRequired: 1,
		EstimatedFees: []Fee{}, EstimatedRouteDurationSeconds: g.cfg.BankSendSeconds}
	return r
}

// render turns the winning label chain into the API route.
func (g *Graph) render(req Request, last *label) *Route {
	var path []*label
	for l := last; l != nil; l = l.prev {
		path = append(path, l)
	}
	slices.Reverse(path)
	src := &g.nodes[path[0].node]
	r := &Route{AmountIn: path[0].amount.Dec(), AmountOut: last.amount.Dec(), EstimatedAmountOut: last.amount.Dec(),
		SourceAssetDenom: src.asset.Denom, SourceAssetChainID: src.chain.ID,
		DestAssetDenom: g.nodes[last.node].asset.Denom, DestAssetChainID: g.nodes[last.node].chain.ID,
		ChainIDs: []string{src.chain.ID}, TxsRequired: last.txs, EstimatedRouteDurationSeconds: last.secs,
		EstimatedFees: []Fee{}, RequiredOPHook: last.hook}
	maxImpact := new(big.Rat)
	for i := 1; i < len(path); i++ {
		l, prev := path[i], path[i-1]
		from, to := &g.nodes[prev.node], &g.nodes[l.node]
		op := Operation{TxIndex: l.txs - 1, AmountIn: prev.amount.Dec(), AmountOut: l.amount.Dec()}
		switch l.via.kind {
		case kindIBC:
			op.Transfer = &Transfer{Port: l.via.port, Channel: l.via.channel, FromChainID: from.chain.ID, ToChainID: to.chain.ID,
				PFMEnabled: from.chain.PFM, SupportsMemo: from.chain.Memo, DenomIn: from.asset.Denom, DenomOut: to.asset.Denom,
				BridgeID: BridgeIBC, SmartRelay: req.SmartRelay, DestDenom: to.asset.Denom}
		case kindDeposit, kindWithdraw:
			op.OPInitTransfer = &OPInitTransfer{FromChainID: from.chain.ID, ToChainID: to.chain.ID, DenomIn: from.asset.Denom,
				DenomOut: to.asset.Denom, OPInitBridgeID: strconv.FormatUint(l.via.bridgeID, 10), BridgeID: BridgeOPInit, SmartRelay: req.SmartRelay}
			if l.via.kind == kindWithdraw {
				wait := fmt.Sprintf("after the bridge's finalization period (about %s)", time.Duration(l.secs-prev.secs)*time.Second)
				if l.secs == prev.secs {
					wait = "at once (the bridge's finalization period is zero)"
				}
				r.ExtraInfos = append(r.ExtraInfos, fmt.Sprintf("OPinit withdrawal from %s: claimable on %s %s; the claim is a separate transaction",
					from.chain.ID, to.chain.ID, wait))
			}
		case kindLZ:
			feeAmt := g.cfg.LayerZeroFee[from.chain.ID]
			if feeAmt == "" {
				feeAmt = "0"
			}
			feeAsset := g.feeAsset(from.chain)
			op.LayerZeroTransfer = &LayerZeroTransfer{FromChainID: from.chain.ID, ToChainID: to.chain.ID, DenomIn: from.asset.Denom,
				DenomOut: to.asset.Denom, SourceOFTContractAddress: from.asset.LZ.OFT, DestinationEndpointID: to.chain.LZEndpointID,
				MessagingFeeAsset: feeAsset, MessagingFeeAmount: feeAmt, MessagingFeeAmountUSD: "", BridgeID: BridgeLayerZero}
			oi := i - 1
			r.EstimatedFees = append(r.EstimatedFees, Fee{BridgeID: BridgeLayerZero, Amount: feeAmt, OriginAsset: feeAsset,
				ChainID: from.chain.ID, TxIndex: op.TxIndex, OperationIndex: &oi, FeeBehavior: "FEE_BEHAVIOR_ADDITIONAL"})
		case kindSwap:
			_, impact := swapOut(prev.amount, l.via)
			if impact.Cmp(maxImpact) > 0 {
				maxImpact = impact
			}
			venue := SwapVenue{Name: l.via.venue.Name, ChainID: l.via.venue.ChainID}
			op.Swap = &Swap{SwapIn: &SwapIn{SwapVenue: venue,
				SwapOperations: []SwapOperation{{Pool: l.via.pool.ID, DenomIn: from.asset.Denom, DenomOut: to.asset.Denom}},
				SwapAmountIn:   prev.amount.Dec(), PriceImpactPercent: percent(impact), EstimatedAmountOut: l.amount.Dec()},
				EstimatedAffiliateFee: "0" + to.asset.Denom, FromChainID: from.chain.ID, ChainID: from.chain.ID,
				DenomIn: from.asset.Denom, DenomOut: to.asset.Denom, SwapVenues: []SwapVenue{venue}}
			r.DoesSwap = true
			if !slices.Contains(r.SwapVenues, venue) {
				r.SwapVenues = append(r.SwapVenues, venue)
			}
		}
		r.Operations = append(r.Operations, op)
		if to.chain.ID != r.ChainIDs[len(r.ChainIDs)-1] {
			r.ChainIDs = append(r.ChainIDs, to.chain.ID)
		}
	}
	r.RequiredChainAddresses = slices.Clone(r.ChainIDs)
	if len(r.RequiredChainAddresses) == 1 {
		// Sender and recipient on the same chain.
		r.RequiredChainAddresses = append(r.RequiredChainAddresses, r.ChainIDs[0])
	}
	if r.DoesSwap {
		p := percent(maxImpact)
		r.SwapPriceImpactPercent = &p
		if maxImpact.Cmp(big.NewRat(1, 10)) > 0 {
			r.Warning = &Warning{Type: "BAD_PRICE_WARNING", Message: "swap price impact is " + p + "%"}
		}
	}
	if r.TxsRequired > 1 {
		r.ExtraInfos = append(r.ExtraInfos, fmt.Sprintf("this route needs %d transactions, each signed separately", r.TxsRequired))
	}
	if r.RequiredOPHook {
		r.ExtraInfos = append(r.ExtraInfos, "the transfer continues on the rollup after the OPinit deposit: sign the hook from /op-hook first")
	}
	return r
}

// CheckSafety turns a bad-price route into an error unless the caller allows unsafe routes.
func CheckSafety(req Request, r *Route) error {
	if r.Warning != nil && r.Warning.Type == "BAD_PRICE_WARNING" && !req.AllowUnsafe {
		return apierr.BadRequest("swap execution price deviates too far from the pool price: %s", r.Warning.Message).
			WithDetails(ReasonBadPrice).WithInfo("set allow_unsafe to accept this route")
	}
	return nil
}

func percent(r *big.Rat) string {
	p := new(big.Rat).Mul(r, big.NewRat(100, 1))
	s := p.FloatString(2)
	return s
}

func (g *Graph) feeAsset(c *registry.Chain) Asset {
	if len(c.FeeTokens) > 0 {
		if a := c.Asset(c.FeeTokens[0].Denom); a != nil {
			return AssetOf(a)
		}
	}
	for _, a := range c.Assets {
		if strings.HasSuffix(a.Denom, "-native") {
			return AssetOf(a)
		}
	}
	return Asset{Denom: c.ID + "-native", ChainID: c.ID, OriginDenom: c.ID + "-native", OriginChainID: c.ID, IsEVM: c.Type == registry.ChainTypeEVM}
}

// Reachable lists the assets the source asset can be transferred to (no swaps, at most one
// transaction unless multiTx), in registry order, the source excluded.
func (g *Graph) Reachable(chainID, denom string, multiTx bool) ([]*registry.Asset, error) {
	srcChain, srcAsset, e := g.Lookup("source_asset_chain_id", chainID, "source_asset_denom", denom)
	if e != nil {
		return nil, e
	}
	src := g.index[nodeKey(srcChain.ID, srcAsset.Denom)]
	one := uint256.NewInt(1)
	best := map[[3]int32]*label{}
	seen := map[int32]bool{src: true}
	q := &pq{}
	heap.Push(q, &label{node: src, amount: one})
	seq := 0
	for q.Len() > 0 && seq < maxLabels {
		l := heap.Pop(q).(*label)
		if l.hops >= g.cfg.MaxHops {
			continue
		}
		for ei := range g.nodes[l.node].out {
			ed := &g.nodes[l.node].out[ei]
			if ed.kind == kindSwap {
				continue
			}
			nl := g.extend(l, ed)
			if nl == nil || (!multiTx && nl.txs > 1) {
				continue
			}
			seq++
			nl.seq = seq
			k := [3]int32{nl.node, int32(nl.cont), b2i(nl.hook)}
			if b, ok := best[k]; ok && !better(nl, b) {
				continue
			}
			best[k] = nl
			seen[nl.node] = true
			heap.Push(q, nl)
		}
	}
	// Only registry assets are destinations; in-between vouchers are passed through.
	var out []*registry.Asset
	for i := range g.listed {
		if seen[i] && i != src {
			out = append(out, g.nodes[i].asset)
		}
	}
	return out, nil
}

// addForwardingNodes adds intermediate-only nodes for vouchers a registry does not list but
// that a packet-forward hop passes through (e.g. a rollup's `l2/` INIT on its way over the L1
// to another rollup): (B, denom) exists when some listed asset arrives there over IBC, B runs
// PFM, and one more hop from B lands on a listed denom. Such nodes are never endpoints, which
// keeps the graph bounded to one extra hop per listed pair.
func (g *Graph) addForwardingNodes() {
	listed := int32(len(g.nodes))
	g.listed = listed
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
					g.nodes[i].out = append(g.nodes[i].out, edge{kind: kindIBC, to: at, port: ch.Port, channel: ch.ID})
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
					outs = append(outs, edge{kind: kindIBC, to: to, port: ch2.Port, channel: ch2.ID})
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
			g.nodes[i].out = append(g.nodes[i].out, edge{kind: kindIBC, to: int32(len(g.nodes) - 1), port: ch.Port, channel: ch.ID})
		}
	}
}
