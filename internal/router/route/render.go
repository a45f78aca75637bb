package route

import (
	"fmt"
	"slices"

	"github.com/holiman/uint256"

	"github.com/rollgate/rollgate/internal/router/bridge"
	"github.com/rollgate/rollgate/internal/router/registry"
)

func (g *Graph) sameChain(req Request, c *registry.Chain, a *registry.Asset, amount *uint256.Int) *Route {
	r := &Route{AmountIn: amount.Dec(), AmountOut: amount.Dec(), EstimatedAmountOut: amount.Dec(),
		SourceAssetDenom: a.Denom, SourceAssetChainID: c.ID, DestAssetDenom: a.Denom, DestAssetChainID: c.ID,
		Operations: []Operation{bridge.SameChain(c, a, amount.Dec())},
		ChainIDs:   []string{c.ID}, RequiredChainAddresses: []string{c.ID, c.ID}, TxsRequired: 1,
		EstimatedFees: []Fee{}, EstimatedRouteDurationSeconds: g.cfg.BankSendSeconds,
		EstimatedDurationSeconds: g.cfg.BankSendSeconds, SourceAssetSymbol: a.Symbol, DestAssetSymbol: a.Symbol}
	return r
}

// render turns the winning label chain into the API route.
func (g *Graph) render(req Request, last *label) *Route {
	var path []*label
	for l := last; l != nil; l = l.prev {
		path = append(path, l)
	}
	slices.Reverse(path)
	src, dst := &g.nodes[path[0].node], &g.nodes[last.node]
	r := &Route{AmountIn: path[0].amount.Dec(), AmountOut: last.amount.Dec(), EstimatedAmountOut: last.amount.Dec(),
		SourceAssetDenom: src.asset.Denom, SourceAssetChainID: src.chain.ID,
		DestAssetDenom: dst.asset.Denom, DestAssetChainID: dst.chain.ID,
		SourceAssetSymbol: src.asset.Symbol, DestAssetSymbol: dst.asset.Symbol,
		ChainIDs: []string{src.chain.ID}, TxsRequired: last.txs, EstimatedRouteDurationSeconds: last.secs,
		EstimatedDurationSeconds: last.secs, EstimatedFees: []Fee{}, RequiredOPHook: last.hook}
	// The hops as the clients see them: a wrap is folded into the hop that brought the coin
	// (its denom_out is the wrapper token, its amount_out the wrapped amount), an unwrap into
	// the hop that takes it away (its denom_in is the wrapper token, its amount_in the amount
	// before toRemote).
	type step struct {
		e   *edge
		h   bridge.Hop
		pos int // the label's index in path, less one
	}
	steps := make([]step, 0, len(path)-1)
	var unwrapped *label // the source tx's unwrap, folded into the next operation
	for i := 1; i < len(path); i++ {
		l, prev := path[i], path[i-1]
		from, to := &g.nodes[prev.node], &g.nodes[l.node]
		switch l.via.kind {
		case kindUnwrap:
			unwrapped = prev
			continue
		case kindWrap:
			s := &steps[len(steps)-1]
			s.h.DenomOut, s.h.AmountOut = to.asset.Denom, l.amount.Dec()
			continue
		}
		h := bridge.Hop{FromChainID: from.chain.ID, ToChainID: to.chain.ID, DenomIn: from.asset.Denom, DenomOut: to.asset.Denom,
			AmountIn: prev.amount.Dec(), AmountOut: l.amount.Dec(), TxIndex: l.txs - 1}
		if unwrapped != nil {
			h.DenomIn, h.AmountIn = g.nodes[unwrapped.node].asset.Denom, unwrapped.amount.Dec()
			unwrapped = nil
		}
		steps = append(steps, step{e: l.via, h: h, pos: i - 1})
		if to.chain.ID != r.ChainIDs[len(r.ChainIDs)-1] {
			r.ChainIDs = append(r.ChainIDs, to.chain.ID)
		}
	}
	var warns []string
	for _, s := range steps {
		out := bridge.Of(s.e.kind).Render(bridge.Env{Reg: g.reg, Est: g.Estimates(), SmartRelay: req.SmartRelay, Index: s.pos}, s.e.via, s.h)
		r.Operations = append(r.Operations, out.Op)
		r.EstimatedFees = append(r.EstimatedFees, out.Fees...)
		r.ExtraInfos = append(r.ExtraInfos, out.Infos...)
		warns = append(warns, out.Warns...)
	}
	r.RequiredChainAddresses = slices.Clone(r.ChainIDs)
	if len(r.RequiredChainAddresses) == 1 {
		// Sender and recipient on the same chain.
		r.RequiredChainAddresses = append(r.RequiredChainAddresses, r.ChainIDs[0])
	}
	if r.TxsRequired > 1 {
		r.ExtraInfos = append(r.ExtraInfos, fmt.Sprintf("this route needs %d transactions, each signed separately", r.TxsRequired))
	}
	r.Wraps = Wraps(g.reg, r.Operations)
	if r.RequiredOPHook {
		continues := last.via.kind != kindWrap
		if continues {
			r.ExtraInfos = append(r.ExtraInfos, "the transfer continues on the rollup after the OPinit deposit: sign the hook from /op-hook first")
		} else {
			r.ExtraInfos = append(r.ExtraInfos, fmt.Sprintf("the deposit is converted to %s on %s by the op hook: sign the hook from /op-hook first", dst.asset.Denom, dst.chain.ID))
		}
		// OPinit runs the hook after minting the deposit and keeps the deposit when the
		// hook fails (initia-labs/OPinit@498315d:x/opchild/keeper/msg_server.go:642-647).
		arrival := &g.nodes[depositArrival(path)]
		r.Warnings = append(r.Warnings, fmt.Sprintf("if the op hook fails on %s, the deposited %s stays there at the recipient",
			arrival.chain.ID, arrival.asset.Denom))
	}
	r.Warnings = append(r.Warnings, warns...)
	return r
}

// depositArrival is the node where the route's OPinit deposit lands.
func depositArrival(path []*label) int32 {
	for _, l := range path {
		if l.via != nil && l.via.kind == kindDeposit {
			return l.node
		}
	}
	return path[len(path)-1].node
}
