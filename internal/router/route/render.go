package route

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/holiman/uint256"

	"github.com/rollgate/rollgate/internal/router/registry"
)

func (g *Graph) sameChain(req Request, c *registry.Chain, a *registry.Asset, amount *uint256.Int) *Route {
	r := &Route{AmountIn: amount.Dec(), AmountOut: amount.Dec(), EstimatedAmountOut: amount.Dec(),
		SourceAssetDenom: a.Denom, SourceAssetChainID: c.ID, DestAssetDenom: a.Denom, DestAssetChainID: c.ID,
		Operations: []Operation{{BankSend: &BankSend{ChainID: c.ID, Denom: a.Denom}, AmountIn: amount.Dec(), AmountOut: amount.Dec()}},
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
	var unwrapped *label // the source tx's unwrap, folded into the next operation
	for i := 1; i < len(path); i++ {
		l, prev := path[i], path[i-1]
		from, to := &g.nodes[prev.node], &g.nodes[l.node]
		switch l.via.kind {
		case kindUnwrap:
			unwrapped = prev
			continue
		case kindWrap:
			// Shown as the arrival of the hop that brought the coin: its denom_out is the
			// wrapper token and its amount_out the wrapped amount.
			op := &r.Operations[len(r.Operations)-1]
			op.AmountOut = l.amount.Dec()
			switch {
			case op.Transfer != nil:
				op.Transfer.DenomOut, op.Transfer.DestDenom = to.asset.Denom, to.asset.Denom
			case op.OPInitTransfer != nil:
				op.OPInitTransfer.DenomOut = to.asset.Denom
			}
			continue
		}
		op := Operation{TxIndex: l.txs - 1, AmountIn: prev.amount.Dec(), AmountOut: l.amount.Dec()}
		if unwrapped != nil {
			// Shown as the departure of the hop that takes the coin away: its denom_in is
			// the wrapper token and its amount_in the amount before toRemote.
			from = &node{chain: from.chain, asset: g.nodes[unwrapped.node].asset}
			op.AmountIn = unwrapped.amount.Dec()
			unwrapped = nil
		}
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
	for _, op := range r.Operations {
		if o := op.OPInitTransfer; o != nil && IsWithdrawal(g.reg, o) {
			r.Warnings = append(r.Warnings, fmt.Sprintf("the OPinit withdrawal from %s is claimable on %s only after the bridge's finalization period, by a separate claim transaction",
				o.FromChainID, o.ToChainID))
		}
	}
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
