package route

import (
	"container/heap"
	"slices"
	"strings"

	"github.com/holiman/uint256"

	"github.com/rollgate/rollgate/internal/router/bridge"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// ParseAmount parses a base-unit amount: a decimal integer, 1 ≤ amount < 2^256.
func ParseAmount(field, s string) (*uint256.Int, *Error) {
	if s == "" {
		return nil, Invalidf(ReasonMissingField, "%s is required", field)
	}
	if strings.HasPrefix(s, "-") {
		if isDigits(s[1:]) {
			return nil, Invalidf(ReasonAmountTooLow, "%s must be positive", field)
		}
		return nil, Invalidf(ReasonInvalidAmount, "%s must be a base-unit integer", field)
	}
	if !isDigits(s) {
		return nil, Invalidf(ReasonInvalidAmount, "%s must be a base-unit integer", field)
	}
	v, err := uint256.FromDecimal(s)
	if err != nil {
		return nil, Invalidf(ReasonAmountTooHigh, "%s exceeds 2^256-1", field)
	}
	if v.IsZero() {
		return nil, Invalidf(ReasonAmountTooLow, "%s must be positive", field)
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

// continuation says what the next hop may do without a new user transaction.
type continuation uint8

const (
	contNone    continuation = iota
	contForward              // after an ICS-20 hop into a PFM chain: a packet-forward memo
	contHook                 // after an OPinit deposit: a signed hook executed on the rollup
	// contUnwrapped: the source tx has converted the wrapper token back (approve + toRemote);
	// the coin must leave the chain in that same tx.
	contUnwrapped
	// contCompose: after a LayerZero hop into a chain with an OPinit composer, whose
	// lz_compose makes the deposit that follows (the OFT send's compose message).
	contCompose
)

type label struct {
	node   int32
	cont   continuation
	hook   bool // the route already uses the op hook
	amount *uint256.Int
	// value ranks labels: the amount in the source asset's units. It differs from amount only
	// after a wrap or unwrap rescaled the amount, so the search never prefers a path because
	// its intermediate coin counts in smaller units.
	value *uint256.Int
	txs   int
	secs  int
	hops  int
	prev  *label
	via   *edge
	seq   int
}

// better reports whether a ranks before b.
func better(a, b *label) bool {
	if c := a.value.Cmp(b.value); c != 0 {
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
			return nil, Invalidf(ReasonUnsupportedField, "exact-out routes (amount_out) are not supported; send amount_in")
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
	allowed, err := allowedKinds(req.Bridges, req.IsOPWithdraw)
	if err != nil {
		return nil, err
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

	q := query{src: src, dst: dst, amount: amount, allowed: allowed, multi: multi, withdrawFirst: req.IsOPWithdraw, amountHooks: req.AllowAmountHooks}
	found := g.search(q, nil)
	if found == nil {
		info := ""
		op := srcAsset.OP
		if w := srcAsset.Wrap; w != nil {
			if remote := srcChain.Asset(w.RemoteDenom); remote != nil {
				op = remote.OP
			}
			if scale := pow10(w.LocalDecimals - w.RemoteDecimals); !new(uint256.Int).Mod(amount, scale).IsZero() {
				return nil, Invalidf(ReasonInvalidAmount, "amount_in %s of %s is not a whole number of %s base units: the ERC20Wrapper converts it back only in multiples of %s",
					amount.Dec(), srcAsset.Denom, w.RemoteDenom, scale.Dec())
			}
		}
		if !req.IsOPWithdraw && op != nil && dstChain.ID == op.L1ChainID && dstAsset.Denom == op.L1Denom {
			// Nothing else takes the token to its L1 denom: the withdrawal is the answer.
			if rt := g.onlyWithdrawal(req, q); rt != nil {
				return rt, nil
			}
			info = "this token leaves the rollup through the OPinit bridge: set is_op_withdraw"
		} else if !multi {
			q.multi = true
			if g.search(q, nil) != nil {
				info = "no single-transaction route; set allow_multi_tx to accept a route needing several transactions"
			}
			q.multi = multi
		}
		if !q.amountHooks {
			// A standard client cannot sign a hook for an exact amount; say that such a
			// route exists for a client that can (rollgate's own CLI).
			q.amountHooks = true
			if g.search(q, nil) != nil {
				if info != "" {
					info += "; "
				}
				info += "a route continuing after the OPinit deposit in an op hook signed for the exact amount exists: rollgate's allow_amount_hooks (then /op-hook needs amount_in)"
			}
		}
		return nil, g.noRoute(req, info)
	}
	return g.render(req, found), nil
}

// onlyWithdrawal is the route of req asked with is_op_withdraw, nil when there is none (or
// the request's bridges leave OPinit out). Find answers it when nothing else leaves the
// rollup for the token's L1 denom: InterwovenKit's Withdraw page asks without the field
// (initia-labs/interwovenkit@913e480:
// packages/interwovenkit-react/src/pages/deposit/wallet/TransferFields.tsx:207-213) and takes a
// route whose first operation is an op_init_transfer to uinit for an OP withdrawal
// (…/pages/bridge/data/tx.ts:579-585); initia.js documents the field as forcing the
// withdrawal (initia-labs/initia.js@a60dc6b: src/bridge/types.ts:109-110), not as allowing it.
func (g *Graph) onlyWithdrawal(req Request, q query) *Route {
	allowed, err := allowedKinds(req.Bridges, true)
	if err != nil || !allowed[kindWithdraw] {
		return nil
	}
	q.allowed, q.withdrawFirst = allowed, true
	found := g.search(q, nil)
	if found == nil {
		return nil
	}
	rt := g.render(req, found)
	rt.ExtraInfos = append(rt.ExtraInfos, "no route leaves the rollup for this denom without the OPinit withdrawal: this is the route is_op_withdraw asks for")
	return rt
}

// allowedKinds are the edge kinds a request lets the search take: every bridge's, or those
// of the bridges it names; the OPinit withdrawal only when it asks for one (is_op_withdraw).
func allowedKinds(names []string, withdraw bool) (kindSet, error) {
	var allowed kindSet
	allowed[kindWrap], allowed[kindUnwrap] = true, true
	for _, b := range bridge.All {
		for _, k := range b.Kinds() {
			allowed[k] = len(names) == 0
		}
	}
	for _, name := range names {
		b := bridge.Named(name)
		if b == nil {
			if slices.Contains(bridge.Known, name) {
				continue // a known bridge type this router has no edges for
			}
			return kindSet{}, Invalidf(ReasonInvalidBridge, "unknown bridge type %q", name)
		}
		for _, k := range b.Kinds() {
			allowed[k] = true
		}
	}
	allowed[kindWithdraw] = allowed[kindWithdraw] && withdraw
	return allowed, nil
}

// kindSet holds one flag per edge kind.
type kindSet [kindUnwrap + 1]bool

// query is what one search explores: from src, over the allowed edge kinds, within one
// transaction unless multi. dst < 0 explores everything reachable instead of stopping at dst.
type query struct {
	src, dst int32
	amount   *uint256.Int
	allowed  kindSet
	multi    bool
	// withdrawFirst makes the OPinit withdrawal the first hop (the "Lossless" option).
	withdrawFirst bool
	// amountHooks lets an IBC transfer or a withdrawal follow an OPinit deposit in its op
	// hook (Request.AllowAmountHooks); without it such a hop is a transaction of its own.
	amountHooks bool
}

// search is the engine's one best-first search. It returns the best label at q.dst (nil when
// unreachable or when exploring), calling reached for every label it keeps.
func (g *Graph) search(q query, reached func(*label)) *label {
	best := map[[3]int32]*label{}
	open := &pq{}
	seq := 0
	heap.Push(open, &label{node: q.src, amount: q.amount, value: q.amount, seq: seq})
	for open.Len() > 0 && seq < maxLabels {
		l := heap.Pop(open).(*label)
		// An unwrap alone is no route: the converted coin must leave in the same tx.
		if l.node == q.dst && l.cont != contUnwrapped {
			return l
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
			if !q.allowed[ed.kind] {
				continue
			}
			// is_op_withdraw: the OPinit withdrawal is the first hop, or the first after the
			// source tx's unwrap of a wrapper token.
			if q.withdrawFirst && l.prev == nil && ed.kind != kindWithdraw && ed.kind != kindUnwrap {
				continue
			}
			if q.withdrawFirst && l.prev != nil && l.prev.prev == nil && l.via.kind == kindUnwrap && ed.kind != kindWithdraw {
				continue
			}
			nl := g.extend(l, ed, q.amountHooks)
			if nl == nil || (!q.multi && nl.txs > 1) {
				continue
			}
			seq++
			nl.seq = seq
			k := [3]int32{nl.node, int32(nl.cont), b2i(nl.hook)}
			if b, ok := best[k]; ok && !better(nl, b) {
				continue
			}
			best[k] = nl
			if reached != nil && nl.cont != contUnwrapped {
				reached(nl)
			}
			heap.Push(open, nl)
		}
	}
	return nil
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

func (g *Graph) noRoute(req Request, info string) error {
	e := Invalidf(ReasonNoRoute, "no route found from %s on %s to %s on %s", req.SourceAssetDenom, req.SourceAssetChainID,
		req.DestAssetDenom, req.DestAssetChainID)
	if info != "" {
		e = e.WithInfo(info)
	}
	return e
}

// extend applies one edge to a label, or returns nil when the hop cannot follow it.
// amountHooks allows the hook after a deposit to move the coin on (query.amountHooks).
func (g *Graph) extend(l *label, ed *edge, amountHooks bool) *label {
	from := &g.nodes[l.node]
	nl := &label{node: ed.to, amount: l.amount, value: l.value, txs: l.txs, secs: l.secs, hops: l.hops + 1, prev: l, via: ed, hook: l.hook}
	if l.cont == contUnwrapped && ed.kind != kindIBC && ed.kind != kindWithdraw {
		return nil
	}
	sameTx := false
	nl.secs += ed.secs
	switch ed.kind {
	case kindIBC:
		// The hop rides in the previous hop's tx as a forward memo (PFM on this chain), as
		// the rollup-side hook of a deposit, or after the source tx's unwrap.
		sameTx = l.cont == contForward || (l.cont == contHook && amountHooks) || l.cont == contUnwrapped
		if to := g.nodes[ed.to].chain; to.PFM {
			nl.cont = contForward
		}
	case kindDeposit:
		nl.cont = contHook
		if l.hook {
			// Only one signed hook per route: a second deposit cannot continue in the same tx.
			nl.cont = contNone
		}
		if l.cont == contCompose {
			// The composer deposits what the LayerZero hop brought, in the sender's tx; its
			// deposit carries no signed hook, so the route goes on in a new tx.
			sameTx, nl.cont = true, contNone
		}
	case kindLZ:
		if g.nodes[ed.to].chain.LZOPinitComposer != "" {
			nl.cont = contCompose
		}
	case kindWithdraw:
		sameTx = (l.cont == contHook && amountHooks) || l.cont == contUnwrapped
	case kindWrap:
		// toLocal runs where the coin arrives: in the signed op hook after an OPinit deposit
		// (the user's approval must be signed in advance, so it is the route's one hook), or
		// in the ibc-hooks memo of an ICS-20 arrival (minievm approves the hook contract for
		// the packet amount itself). Nothing else brings the coin in without a new tx.
		if l.prev == nil {
			return nil
		}
		switch {
		case l.via.kind == kindDeposit && l.cont == contHook:
			nl.hook = true
		case l.via.kind == kindIBC && !l.hook && from.chain.Hooks:
		default:
			return nil
		}
		sameTx = true
		w := g.nodes[ed.to].asset.Wrap
		out, overflow := new(uint256.Int).MulOverflow(l.amount, pow10(w.LocalDecimals-w.RemoteDecimals))
		if overflow {
			return nil
		}
		nl.amount = out
	case kindUnwrap:
		// approve + toRemote in the source tx; toRemote refuses dust below the coin's unit.
		if l.prev != nil {
			return nil
		}
		w := from.asset.Wrap
		scale := pow10(w.LocalDecimals - w.RemoteDecimals)
		var rem uint256.Int
		q, _ := new(uint256.Int).DivMod(l.amount, scale, &rem)
		if !rem.IsZero() || q.IsZero() {
			return nil
		}
		nl.amount = q
		nl.cont = contUnwrapped
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

// Reachable lists the assets the source asset can be transferred to (at most one
// transaction unless multiTx), in registry order, the source excluded.
func (g *Graph) Reachable(chainID, denom string, multiTx bool) ([]*registry.Asset, error) {
	srcChain, srcAsset, e := g.Lookup("source_asset_chain_id", chainID, "source_asset_denom", denom)
	if e != nil {
		return nil, e
	}
	src := g.index[nodeKey(srcChain.ID, srcAsset.Denom)]
	seen := map[int32]bool{src: true}
	all, _ := allowedKinds(nil, true)
	// An amount every wrapper can convert back: 10^36 base units.
	probe := pow10(36)
	g.search(query{src: src, dst: -1, amount: probe, allowed: all, multi: multiTx},
		func(l *label) { seen[l.node] = true })
	// Only registry assets are destinations; in-between vouchers are passed through.
	var out []*registry.Asset
	for i := range g.listed {
		if seen[i] && i != src {
			out = append(out, g.nodes[i].asset)
		}
	}
	return out, nil
}

// pow10 is 10^n for the decimal differences of registry assets (0 ≤ n ≤ 77).
func pow10(n int) *uint256.Int {
	return new(uint256.Int).Exp(uint256.NewInt(10), uint256.NewInt(uint64(n)))
}
