package server

import (
	"math/big"
	"net/http"

	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/gateway"
)

// Initia's x/tx gas prices (GET /initia/tx/v1/gas_prices, /initia/tx/v1/gas_prices/{denom}),
// served by the L1 only, as on Initia. InterwovenKit prices an L1 tx's fee from them and a
// rollup's from the registry's fee tokens (packages/interwovenkit-react/src/data/fee.ts
// fetchGasPrices). The devnet's prices are its node's minimum gas prices, 0 for a denom the
// node sets none for: the chain accepts a tx without a fee (engine/fee.go), so a wallet
// that pays nothing is right.

// gasPrices are the L1's prices: the fee denom first, then any other denom the node prices.
func (s *rest) gasPrices() []engine.GasPrice {
	cfg := s.c.Config()
	out := []engine.GasPrice{{Denom: cfg.FeeDenom, Price: new(big.Rat)}}
	for _, p := range cfg.MinGasPrices {
		if p.Denom == cfg.FeeDenom {
			out[0].Price = p.Price
		} else {
			out = append(out, p)
		}
	}
	return out
}

// decCoin is a DecCoin as the gateway prints it: the amount with 18 decimals.
func decCoin(p engine.GasPrice) ordered {
	price := p.Price
	if price == nil {
		price = new(big.Rat)
	}
	return ordered{{"denom", p.Denom}, {"amount", price.FloatString(18)}}
}

func (s *rest) serveGasPrices(w http.ResponseWriter, _ *http.Request) {
	ps := s.gasPrices()
	out := make([]any, len(ps))
	for i, p := range ps {
		out[i] = decCoin(p)
	}
	writeJSON(w, http.StatusOK, ordered{{"gas_prices", out}})
}

func (s *rest) serveGasPrice(w http.ResponseWriter, r *http.Request) {
	d := r.PathValue("denom")
	for _, p := range s.gasPrices() {
		if p.Denom == d {
			writeJSON(w, http.StatusOK, ordered{{"gas_price", decCoin(p)}})
			return
		}
	}
	// A denom that is neither the base denom nor a whitelisted fee token: the keeper
	// finds no pool to price it against.
	gateway.WriteError(w, http.StatusInternalServerError, 2, "denom "+d+" is not a fee denom: not found")
}
