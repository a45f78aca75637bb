package bridge

import (
	"strings"

	"github.com/rollgate/rollgate/internal/router/registry"
)

// Operation is the Skip wire union of one hop: exactly one variant plus its tx index and
// amounts. Each variant is declared in the file of the bridge that renders it (Transfer in
// ibc.go, OPInitTransfer in opinit.go, LayerZeroTransfer in layerzero.go, BankSend in
// bank.go, Swap in swap.go); route re-exports them all as route.Operation and friends.
// Only Render fills one; everything else reads an operation through Hop.
type Operation struct {
	Transfer          *Transfer          `json:"transfer,omitempty"`
	OPInitTransfer    *OPInitTransfer    `json:"op_init_transfer,omitempty"`
	LayerZeroTransfer *LayerZeroTransfer `json:"layer_zero_transfer,omitempty"`
	BankSend          *BankSend          `json:"bank_send,omitempty"`
	Swap              *Swap              `json:"swap,omitempty"`
	TxIndex           int                `json:"tx_index"`
	AmountIn          string             `json:"amount_in"`
	AmountOut         string             `json:"amount_out"`
}

// variant is what every member of the union says about itself.
type variant interface {
	hop() Hop
	// withDenoms sets on o a copy of the member whose hop takes in and gives out ("" keeps
	// that side).
	withDenoms(o *Operation, in, out string)
}

// variants returns the first member set and how many are: the one place the union is read.
func (o Operation) variants() (first variant, n int) {
	for _, v := range [...]variant{nilIf(o.Transfer), nilIf(o.OPInitTransfer), nilIf(o.LayerZeroTransfer), nilIf(o.BankSend), nilIf(o.Swap)} {
		if v != nil {
			if n == 0 {
				first = v
			}
			n++
		}
	}
	return first, n
}

// nilIf keeps a nil member nil as an interface value.
func nilIf[T any, P interface {
	*T
	variant
}](p P) variant {
	if p == nil {
		return nil
	}
	return p
}

// Hop is the operation normalized: its bridge, endpoints, denoms and amounts. An operation
// without a variant is a Hop with a nil Bridge; with several, the first one counts (Variants
// tells them apart).
func (o Operation) Hop() Hop {
	var h Hop
	if v, _ := o.variants(); v != nil {
		h = v.hop()
	}
	h.AmountIn, h.AmountOut, h.TxIndex = o.AmountIn, o.AmountOut, o.TxIndex
	return h
}

// WithDenoms is a copy of o whose hop takes in and gives out ("" keeps that side): the
// hop as the bridge itself sees it when a conversion (minievm's wrapper) is folded into it.
func (o Operation) WithDenoms(in, out string) Operation {
	if v, _ := o.variants(); v != nil {
		v.withDenoms(&o, in, out)
	}
	return o
}

// or is a unless it is empty.
func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Variants counts the variants set (a valid operation has exactly one).
func (o Operation) Variants() int {
	_, n := o.variants()
	return n
}

// FromChainID is the chain the operation starts on.
func (o Operation) FromChainID() string { return o.Hop().FromChainID }

// ToChainID is the chain the operation ends on.
func (o Operation) ToChainID() string { return o.Hop().ToChainID }

// DenomIn is the operation's input denom.
func (o Operation) DenomIn() string { return o.Hop().DenomIn }

// DenomOut is the operation's output denom.
func (o Operation) DenomOut() string { return o.Hop().DenomOut }

// Fee is an estimated fee of the route.
type Fee struct {
	FeeType        string `json:"fee_type,omitempty"`
	BridgeID       string `json:"bridge_id"`
	Amount         string `json:"amount"`
	USDAmount      string `json:"usd_amount,omitempty"` // absent when the fee asset has no current price
	OriginAsset    Asset  `json:"origin_asset"`
	ChainID        string `json:"chain_id"`
	TxIndex        int    `json:"tx_index"`
	OperationIndex *int   `json:"operation_index"`
	FeeBehavior    string `json:"fee_behavior"`
}

// Asset is the Skip Asset record.
type Asset struct {
	Denom             string `json:"denom"`
	ChainID           string `json:"chain_id"`
	OriginDenom       string `json:"origin_denom"`
	OriginChainID     string `json:"origin_chain_id"`
	Trace             string `json:"trace"`
	IsCW20            bool   `json:"is_cw20"`
	IsEVM             bool   `json:"is_evm"`
	IsSVM             bool   `json:"is_svm"`
	Symbol            string `json:"symbol,omitempty"`
	Name              string `json:"name,omitempty"`
	LogoURI           string `json:"logo_uri,omitempty"`
	Decimals          *int   `json:"decimals,omitempty"`
	TokenContract     string `json:"token_contract,omitempty"`
	Description       string `json:"description,omitempty"`
	CoingeckoID       string `json:"coingecko_id,omitempty"`
	RecommendedSymbol string `json:"recommended_symbol,omitempty"`
	// Hidden is the registry entry's `hidden` flag (false when it has none): InterwovenKit
	// skips hidden assets (initia-labs/interwovenkit@913e480:
	// packages/interwovenkit-react/src/pages/bridge/data/assets.ts:17-30).
	Hidden bool `json:"hidden"`
}

// AssetOf renders a registry asset as a Skip Asset.
func AssetOf(a *registry.Asset) Asset {
	d := a.Decimals
	isEVM, token := a.IsEVM, a.TokenContract
	if w := a.Wrap; w != nil && token == "" && strings.HasPrefix(a.Denom, "evm/") {
		// minievm's wrapper token is an ERC-20 whose bank denom is evm/<its address>: Skip's
		// Asset marks an ERC-20 with is_evm and names it in token_contract.
		isEVM, token = true, "0x"+strings.TrimPrefix(a.Denom, "evm/")
	}
	return Asset{Denom: a.Denom, ChainID: a.ChainID, OriginDenom: a.OriginDenom, OriginChainID: a.OriginChainID,
		Trace: a.Trace, IsEVM: isEVM, Symbol: a.Symbol, Name: a.Name, LogoURI: a.LogoURI, Decimals: &d,
		TokenContract: token, Description: a.Description, CoingeckoID: a.CoingeckoID, RecommendedSymbol: a.Symbol,
		Hidden: a.Hidden}
}
