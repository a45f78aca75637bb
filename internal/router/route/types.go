package route

import (
	"github.com/holiman/uint256"

	"github.com/rollgate/rollgate/internal/router/bridge"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// Bridge types as the Skip API names them.
const (
	BridgeIBC       = bridge.NameIBC
	BridgeOPInit    = bridge.NameOPInit
	BridgeLayerZero = bridge.NameLayerZero
)

// Request is the body of POST /v2/fungible/route (Skip RouteRequest + Initia's is_op_withdraw).
// Unknown fields are ignored by the decoder.
type Request struct {
	AmountIn           string      `json:"amount_in"`
	AmountOut          string      `json:"amount_out,omitempty"`
	SourceAssetChainID string      `json:"source_asset_chain_id"`
	SourceAssetDenom   string      `json:"source_asset_denom"`
	DestAssetChainID   string      `json:"dest_asset_chain_id"`
	DestAssetDenom     string      `json:"dest_asset_denom"`
	AllowMultiTx       *bool       `json:"allow_multi_tx,omitempty"`
	AllowUnsafe        bool        `json:"allow_unsafe,omitempty"`
	Bridges            []string    `json:"bridges,omitempty"`
	SmartRelay         bool        `json:"smart_relay,omitempty"`
	AllowSwaps         *bool       `json:"allow_swaps,omitempty"`
	SwapVenues         []SwapVenue `json:"swap_venues,omitempty"`
	IsOPWithdraw       bool        `json:"is_op_withdraw,omitempty"`
	// AllowAmountHooks is rollgate's extension: it opts in to routes whose op hook continues
	// the route after an OPinit deposit with an IBC transfer or a withdrawal on the rollup.
	// Such a hook moves an exact coin, so /op-hook needs amount_in to build it, which
	// InterwovenKit, initia.js and Skip's clients never send: without the field every hook a
	// route needs is a wrap hook (docs/router-api.md, "Op hook").
	AllowAmountHooks bool `json:"allow_amount_hooks,omitempty"`
}

// Route is the /route response (Skip Route + Initia extras).
type Route struct {
	AmountIn                      string      `json:"amount_in"`
	AmountOut                     string      `json:"amount_out"`
	SourceAssetDenom              string      `json:"source_asset_denom"`
	SourceAssetChainID            string      `json:"source_asset_chain_id"`
	DestAssetDenom                string      `json:"dest_asset_denom"`
	DestAssetChainID              string      `json:"dest_asset_chain_id"`
	Operations                    []Operation `json:"operations"`
	ChainIDs                      []string    `json:"chain_ids"`
	RequiredChainAddresses        []string    `json:"required_chain_addresses"`
	DoesSwap                      bool        `json:"does_swap"`
	EstimatedAmountOut            string      `json:"estimated_amount_out"`
	SwapVenues                    []SwapVenue `json:"swap_venues,omitempty"`
	TxsRequired                   int         `json:"txs_required"`
	SwapPriceImpactPercent        *string     `json:"swap_price_impact_percent,omitempty"`
	Warning                       *Warning    `json:"warning,omitempty"`
	EstimatedFees                 []Fee       `json:"estimated_fees"`
	EstimatedRouteDurationSeconds int         `json:"estimated_route_duration_seconds"`
	RequiredOPHook                bool        `json:"required_op_hook"`
	ExtraInfos                    []string    `json:"extra_infos,omitempty"`
	ExtraWarnings                 []string    `json:"extra_warnings,omitempty"`
	// The display fields initia.js v2 reads instead of Skip's (initia-labs/initia.js@a60dc6b:
	// src/bridge/router-client.ts:56-73,327-345): the duration under its own name, the two
	// assets' symbols, and warnings as plain strings.
	EstimatedDurationSeconds int      `json:"estimated_duration_seconds"`
	SourceAssetSymbol        string   `json:"source_asset_symbol,omitempty"`
	DestAssetSymbol          string   `json:"dest_asset_symbol,omitempty"`
	Warnings                 []string `json:"warnings,omitempty"`
	// USDAmountIn and USDAmountOut are the amounts' dollar values (Skip's usd_amount_in/out:
	// cents, as its clients show them), absent when either asset has no current price;
	// PriceInfo says, per asset, where the price came from and how old it is, or why there is
	// none (a rollgate extension).
	USDAmountIn  string      `json:"usd_amount_in,omitempty"`
	USDAmountOut string      `json:"usd_amount_out,omitempty"`
	PriceInfo    []PriceInfo `json:"price_info,omitempty"`
	// Wraps are the route's conversions between a minievm chain's bridged coin and its
	// ERC20Wrapper token, which no operation shows as a step of its own; the same as
	// Wraps(reg, Operations), which is what /msgs and /op-hook use on operations sent back.
	Wraps []WrapStep `json:"-"`
}

// Wrap step placements (WrapStep.Via).
const (
	// WrapInOPHook: toLocal after an OPinit deposit, in the hook the user signs before /msgs
	// (approve(wrapper) on the coin's ERC-20, then toLocal); the route has required_op_hook.
	WrapInOPHook = "op_hook"
	// WrapInIBCHook: toLocal in the ibc-hooks memo of the ICS-20 arrival (minievm approves
	// the hook contract for the packet amount itself: initia-labs/minievm@f68c852:
	// app/ibc-hooks/receive.go:81,93-100).
	WrapInIBCHook = "ibc_hook"
	// WrapInSourceTx: toRemote in the source tx, before the hop that takes the coin away.
	// initia.js counts exactly two MsgCalls in such a tx (initia-labs/initia.js@a60dc6b:
	// src/bridge/bridge.ts:286-294): approve(wrapper, amount) on the wrapper token, then
	// toRemote, or the wrapper's toRemoteAndOPWithdraw / toRemoteAndIBCTransfer, which convert
	// and send in the one call (minievm@f68c852 ERC20Wrapper.sol:236-406).
	WrapInSourceTx = "source_tx"
)

// WrapStep is one conversion by minievm's ERC20Wrapper (initia-labs/minievm@f68c852:
// x/evm/contracts/erc20_wrapper/ERC20Wrapper.sol) that a route makes inside operation
// OperationIndex: ToLocal, the coin the operation brought (RemoteDenom) becomes the wrapper
// token (LocalDenom, its denom_out); otherwise the wrapper token (its denom_in) becomes the
// coin before the operation takes it away. Amounts are base units of each denom; LocalAmount =
// RemoteAmount × 10^(LocalDecimals−RemoteDecimals).
type WrapStep struct {
	OperationIndex int
	ToLocal        bool
	Via            string // WrapInOPHook, WrapInIBCHook or WrapInSourceTx
	ChainID        string // the minievm chain
	Contract       string // the wrapper contract, 0x-hex
	LocalDenom     string // evm/<address>
	RemoteDenom    string // the l2/… or ibc/… coin
	LocalDecimals  int
	RemoteDecimals int
	LocalAmount    string
	RemoteAmount   string
}

// Wraps lists the wrap steps that operations (as /route returned them) imply: an operation
// whose denom_out is a wrapper token of its destination chain ends with toLocal, one whose
// denom_in is a wrapper token of its source chain starts with toRemote. Operations of other
// kinds (and assets without a wrap in reg) imply none.
func Wraps(reg *registry.Registry, ops []Operation) []WrapStep {
	hops := make([]bridge.Hop, len(ops))
	for i, op := range ops {
		hops[i] = op.Hop()
	}
	return WrapsOf(reg, hops)
}

// WrapsOf is Wraps of operations already normalized (Operation.Hop).
func WrapsOf(reg *registry.Registry, hops []bridge.Hop) []WrapStep {
	var out []WrapStep
	for i, h := range hops {
		if h.Bridge != bridge.IBC && h.Bridge != bridge.OPInit {
			continue
		}
		if c := reg.Chain(h.FromChainID); c != nil {
			if a := c.Asset(h.DenomIn); a != nil && a.Wrap != nil {
				out = append(out, wrapStep(i, false, WrapInSourceTx, c, a, h.AmountIn))
			}
		}
		if c := reg.Chain(h.ToChainID); c != nil {
			if a := c.Asset(h.DenomOut); a != nil && a.Wrap != nil {
				via := WrapInIBCHook
				if h.Bridge == bridge.OPInit {
					via = WrapInOPHook
				}
				out = append(out, wrapStep(i, true, via, c, a, h.AmountOut))
			}
		}
	}
	return out
}

func wrapStep(i int, toLocal bool, via string, c *registry.Chain, a *registry.Asset, local string) WrapStep {
	w := a.Wrap
	s := WrapStep{OperationIndex: i, ToLocal: toLocal, Via: via, ChainID: c.ID, Contract: w.Contract, LocalDenom: a.Denom,
		RemoteDenom: w.RemoteDenom, LocalDecimals: w.LocalDecimals, RemoteDecimals: w.RemoteDecimals, LocalAmount: local}
	if v, err := uint256.FromDecimal(local); err == nil && w.LocalDecimals >= w.RemoteDecimals {
		s.RemoteAmount = new(uint256.Int).Div(v, pow10(w.LocalDecimals-w.RemoteDecimals)).Dec()
	}
	return s
}

// Warning is a route price warning.
type Warning struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// The Skip wire records of operations, declared beside the bridges that render them
// (router/bridge) and read through Operation.Hop.
type (
	Operation         = bridge.Operation
	Transfer          = bridge.Transfer
	OPInitTransfer    = bridge.OPInitTransfer
	LayerZeroTransfer = bridge.LayerZeroTransfer
	BankSend          = bridge.BankSend
	Swap              = bridge.Swap
	SwapIn            = bridge.SwapIn
	SwapOperation     = bridge.SwapOperation
	SwapVenue         = bridge.SwapVenue
	Fee               = bridge.Fee
	Asset             = bridge.Asset
	// Hop is an operation normalized (Operation.Hop).
	Hop = bridge.Hop
)

// PriceInfo is where a dollar figure of an answer comes from: the asset's USD price (per
// whole token), its source ("connect": the L1's oracle, with the currency pair and the height
// it was set at; "coingecko": the operator's second source, with the id) and its age; or,
// when the figure is absent, why (Unavailable). A rollgate extension Skip's clients ignore.
type PriceInfo struct {
	ChainID      string `json:"chain_id,omitempty"`
	Denom        string `json:"denom,omitempty"`
	Price        string `json:"price,omitempty"`
	Source       string `json:"source,omitempty"`
	CurrencyPair string `json:"currency_pair,omitempty"`
	CoingeckoID  string `json:"coingecko_id,omitempty"`
	Height       int64  `json:"height,omitempty"`
	AgeSeconds   *int64 `json:"age_seconds,omitempty"`
	Unavailable  string `json:"unavailable,omitempty"`
}

// AssetOf renders a registry asset as a Skip Asset.
func AssetOf(a *registry.Asset) Asset { return bridge.AssetOf(a) }

// IsWithdrawal reports whether an op_init_transfer goes L2→L1 in reg.
func IsWithdrawal(reg *registry.Registry, op *OPInitTransfer) bool {
	return bridge.IsWithdrawal(reg, op)
}
