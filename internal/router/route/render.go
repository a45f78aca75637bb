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
	if r.RequiredOPHook {
		r.ExtraInfos = append(r.ExtraInfos, "the transfer continues on the rollup after the OPinit deposit: sign the hook from /op-hook first")
	}
	return r
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
