package bridge

import "github.com/rollgate/rollgate/internal/router/registry"

// Swap is an exact-in swap on a configured venue.
type Swap struct {
	SwapIn                *SwapIn     `json:"swap_in,omitempty"`
	EstimatedAffiliateFee string      `json:"estimated_affiliate_fee"`
	FromChainID           string      `json:"from_chain_id"`
	ChainID               string      `json:"chain_id"`
	DenomIn               string      `json:"denom_in"`
	DenomOut              string      `json:"denom_out"`
	SwapVenues            []SwapVenue `json:"swap_venues"`
}

// SwapIn is the exact-in swap detail.
type SwapIn struct {
	SwapVenue          SwapVenue       `json:"swap_venue"`
	SwapOperations     []SwapOperation `json:"swap_operations"`
	SwapAmountIn       string          `json:"swap_amount_in"`
	PriceImpactPercent string          `json:"price_impact_percent"`
	EstimatedAmountOut string          `json:"estimated_amount_out"`
}

// SwapOperation is one pool hop.
type SwapOperation struct {
	Pool     string `json:"pool"`
	DenomIn  string `json:"denom_in"`
	DenomOut string `json:"denom_out"`
}

// SwapVenue names a venue.
type SwapVenue struct {
	Name    string `json:"name"`
	ChainID string `json:"chain_id"`
	LogoURI string `json:"logo_uri,omitempty"`
}

func (s *Swap) withDenoms(o *Operation, in, out string) {
	c := *s
	c.DenomIn, c.DenomOut = or(in, c.DenomIn), or(out, c.DenomOut)
	o.Swap = &c
}

func (s *Swap) hop() Hop {
	return Hop{Bridge: SwapOp, FromChainID: s.ChainID, ToChainID: s.ChainID, DenomIn: s.DenomIn, DenomOut: s.DenomOut, Label: "swap"}
}

// swap reads a swap operation sent back; the router renders none and builds none.
type swap struct{ none }

func (swap) Name() string                  { return "" }
func (swap) Render(Env, Via, Hop) Rendered { return Rendered{} }
func (swap) Build(l Leg) (Message, error) {
	if c, evm := onEVM(l); evm {
		return Message{}, notOnEVM(l, c)
	}
	return Message{}, unsupported("operation %d cannot start a transaction", l.First)
}

func (swap) Check(reg *registry.Registry, i int, op Operation, _ string) (string, error) {
	if _, _, _, _, err := assets(reg, i, op); err != nil {
		return "", err
	}
	return "", unsupported("operation %d: message generation for swaps is not supported yet", i)
}
