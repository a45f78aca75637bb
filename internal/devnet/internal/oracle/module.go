package oracle

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/devnet/internal/gateway"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// Module is x/oracle on one chain: the L1's own, or a rollup's mirror of it.
type Module struct {
	book   *Book
	mirror bool
}

// NewL1 is the L1's x/oracle.
func NewL1(b *Book) *Module { return &Module{book: b} }

// NewRollup is a rollup's x/oracle, holding what OPinit relays from the L1.
func NewRollup(b *Book) *Module { return &Module{book: b, mirror: true} }

// Name implements sim.Module.
func (m *Module) Name() string { return "oracle" }

// InitGenesis implements sim.Module: the pairs are the book's, no state is written.
func (m *Module) InitGenesis(sim.Env) error { return nil }

// Handlers implements sim.Module: prices arrive with the block (vote extensions on the L1,
// the executor's relay on a rollup), never as a user's message.
func (m *Module) Handlers() map[string]sim.Handler { return nil }

// Traffic implements sim.Module.
func (m *Module) Traffic(*rand.Rand, sim.Query, []sim.Account) []sim.Intent { return nil }

// QuoteAt is the quote this chain stores for a pair as of its height h (ok false: an unknown
// pair).
func (m *Module) QuoteAt(name string, h int64) (Quote, bool) {
	if !m.mirror {
		return m.book.L1Quote(name, h)
	}
	q, ok := m.book.L1Quote(name, h-1)
	if ok && q.Price != nil {
		q.BlockHeight++ // written by the rollup block after the L1 block
	}
	return q, ok
}

// Routes implements sim.Module: Connect's query service over the gRPC gateway
// (skip-mev/connect:proto/connect/oracle/v2/query.proto), its errors as the keeper words
// them (x/oracle/keeper/grpc_query.go), which a node's gateway answers as gRPC Unknown.
func (m *Module) Routes(mux *http.ServeMux, at sim.QueryAt) {
	mux.HandleFunc("GET /connect/oracle/v2/get_all_tickers", func(w http.ResponseWriter, r *http.Request) {
		out := make([]pairJSON, len(m.book.pairs))
		for i, p := range m.book.pairs {
			out[i] = pairJSON{p.Base, p.Quote}
		}
		gateway.WriteJSON(w, map[string][]pairJSON{"currency_pairs": out})
	})
	mux.HandleFunc("GET /connect/oracle/v2/get_price", func(w http.ResponseWriter, r *http.Request) {
		q, err := at(r)
		if err != nil {
			gateway.WriteStateError(w, err)
			return
		}
		s := r.URL.Query().Get("currency_pair")
		name, err := parsePair(s)
		if err != nil {
			gateway.WriteError(w, http.StatusInternalServerError, 2, "invalid currency pair: "+err.Error())
			return
		}
		quote, ok := m.QuoteAt(name, q.Height())
		if !ok {
			gateway.WriteError(w, http.StatusInternalServerError, 2, fmt.Sprintf("no price / nonce reported for CurrencyPair: %s, the module is not tracking this CurrencyPair", name))
			return
		}
		gateway.WriteJSON(w, priceJSON(quote))
	})
	mux.HandleFunc("GET /connect/oracle/v2/get_prices", func(w http.ResponseWriter, r *http.Request) {
		q, err := at(r)
		if err != nil {
			gateway.WriteStateError(w, err)
			return
		}
		out := []priceResponse{}
		for _, s := range r.URL.Query()["currency_pair_ids"] {
			name, err := parsePair(s)
			if err != nil {
				gateway.WriteError(w, http.StatusInternalServerError, 2, "error unmarshalling CurrencyPairID: "+err.Error())
				return
			}
			quote, ok := m.QuoteAt(name, q.Height())
			if !ok {
				gateway.WriteError(w, http.StatusInternalServerError, 2, fmt.Sprintf("no price / nonce reported for CurrencyPair: %s, the module is not tracking this CurrencyPair", name))
				return
			}
			out = append(out, priceJSON(quote))
		}
		gateway.WriteJSON(w, map[string][]priceResponse{"prices": out})
	})
	mux.HandleFunc("GET /connect/oracle/v2/get_currency_pair_mapping_list", func(w http.ResponseWriter, r *http.Request) {
		type mapping struct {
			ID           string   `json:"id"`
			CurrencyPair pairJSON `json:"currency_pair"`
		}
		out := make([]mapping, len(m.book.pairs))
		for i, p := range m.book.pairs {
			out[i] = mapping{strconv.Itoa(i), pairJSON{p.Base, p.Quote}}
		}
		gateway.WriteJSON(w, map[string][]mapping{"mappings": out})
	})
}

// parsePair is Connect's CurrencyPairFromString and ValidateBasic for the plain
// "BASE/QUOTE" form: split on "/", upper-cased.
func parsePair(s string) (string, error) {
	parts := strings.Split(s, "/")
	if len(parts) != 2 {
		return "", fmt.Errorf("incorrectly formatted CurrencyPair: %q", s)
	}
	base, quote := strings.ToUpper(parts[0]), strings.ToUpper(parts[1])
	if base == "" {
		return "", fmt.Errorf("base asset cannot be empty")
	}
	if quote == "" {
		return "", fmt.Errorf("quote asset cannot be empty")
	}
	return base + "/" + quote, nil
}

// pairJSON is connect.types.v2.CurrencyPair, whose proto fields are capitalised.
type pairJSON struct {
	Base  string `json:"Base"`
	Quote string `json:"Quote"`
}

// priceResponse is GetPriceResponse as the gateway prints it, uint64 as strings. Before a
// pair's first update the keeper still answers, with a zero QuotePrice (price "0", the zero
// time, height 0: x/oracle/keeper/keeper.go GetPriceWithNonceForCurrencyPair), which a
// client must not take for a price.
type priceResponse struct {
	Price    *quotePrice `json:"price"`
	Nonce    string      `json:"nonce"`
	Decimals string      `json:"decimals"`
	ID       string      `json:"id"`
}

type quotePrice struct {
	Price          string `json:"price"`
	BlockTimestamp string `json:"block_timestamp"`
	BlockHeight    string `json:"block_height"`
}

func priceJSON(q Quote) priceResponse {
	out := priceResponse{Nonce: strconv.FormatUint(q.Nonce, 10), Decimals: strconv.FormatUint(q.Decimals, 10), ID: strconv.FormatUint(q.ID, 10)}
	out.Price = &quotePrice{Price: "0", BlockTimestamp: gateway.Timestamp(time.Time{}), BlockHeight: "0"}
	if q.Price != nil {
		out.Price = &quotePrice{Price: q.Price.String(), BlockTimestamp: gateway.Timestamp(q.BlockTime), BlockHeight: strconv.FormatInt(q.BlockHeight, 10)}
	}
	return out
}
