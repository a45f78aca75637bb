package price

import (
	"context"
	"fmt"
	"math/big"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
)

// The x/oracle REST gateway of Skip's Connect
// (skip-mev/connect@9f85605:proto/connect/oracle/v2/query.proto): every currency pair the
// module tracks, and their prices. GetPrices fails as a whole when one pair has no price yet
// (skip-mev/connect@9f85605:x/oracle/keeper/grpc_query.go, GetPrices), so a failed batch is
// asked pair by pair.
const (
	pathTickers = "/connect/oracle/v2/get_all_tickers"
	pathPrices  = "/connect/oracle/v2/get_prices"
	pathPrice   = "/connect/oracle/v2/get_price"
)

// pricesBatch bounds the pairs of one get_prices request (they travel in the query string).
const pricesBatch = 50

// u64 is a uint64 as grpc-gateway writes it (a JSON string) or as a number.
type u64 uint64

func (v *u64) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		*v = 0
		return nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	*v = u64(n)
	return err
}

// currencyPair is connect.types.v2.CurrencyPair (proto fields Base and Quote, capitalised on
// the wire: skip-mev/connect@9f85605:proto/connect/types/v2/currency_pair.proto).
type currencyPair struct {
	Base  string `json:"Base"`
	Quote string `json:"Quote"`
}

func (p currencyPair) String() string {
	return strings.ToUpper(p.Base) + "/" + strings.ToUpper(p.Quote)
}

// priceResponse is connect.oracle.v2.GetPriceResponse: the QuotePrice (price × 10^-decimals
// of Quote per Base, set at block_height, block_timestamp), nil before the first update.
type priceResponse struct {
	Price *struct {
		Price          string    `json:"price"`
		BlockTimestamp time.Time `json:"block_timestamp"`
		BlockHeight    u64       `json:"block_height"`
	} `json:"price"`
	Nonce    u64 `json:"nonce"`
	Decimals u64 `json:"decimals"`
	ID       u64 `json:"id"`
}

// readOracle reads every USD pair the oracle tracks and its price. A pair without a price
// (none yet, or zero) is left out: absent, never 0.
func readOracle(ctx context.Context, cl *cosmosrest.Client) (map[string]Quote, error) {
	var tickers struct {
		CurrencyPairs []currencyPair `json:"currency_pairs"`
	}
	if err := cl.Get(ctx, pathTickers, nil, 0, &tickers); err != nil {
		return nil, err
	}
	var pairs []string
	for _, p := range tickers.CurrencyPairs {
		if strings.EqualFold(p.Quote, QuoteCurrency) && p.Base != "" {
			pairs = append(pairs, p.String())
		}
	}
	out := make(map[string]Quote, len(pairs))
	for start := 0; start < len(pairs); start += pricesBatch {
		batch := pairs[start:min(start+pricesBatch, len(pairs))]
		var r struct {
			Prices []priceResponse `json:"prices"`
		}
		err := cl.Get(ctx, pathPrices, url.Values{"currency_pair_ids": batch}, 0, &r)
		if err == nil && len(r.Prices) == len(batch) {
			for i, p := range r.Prices {
				if q, ok := quoteOf(batch[i], p); ok {
					out[batch[i]] = q
				}
			}
			continue
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for _, pair := range batch {
			var p priceResponse
			if err := cl.Get(ctx, pathPrice, url.Values{"currency_pair": {pair}}, 0, &p); err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				continue // no price for this pair yet
			}
			if q, ok := quoteOf(pair, p); ok {
				out[pair] = q
			}
		}
	}
	return out, nil
}

func quoteOf(pair string, p priceResponse) (Quote, bool) {
	if p.Price == nil {
		return Quote{}, false
	}
	n, ok := new(big.Int).SetString(p.Price.Price, 10)
	if !ok || n.Sign() <= 0 || p.Decimals > maxScale*2 {
		return Quote{}, false
	}
	return Quote{
		USD:    new(big.Rat).SetFrac(n, pow10(int(p.Decimals))),
		Source: SourceOracle,
		Ref:    pair,
		Height: int64(p.Price.BlockHeight),
		At:     p.Price.BlockTimestamp,
	}, true
}

// oracleError says why the oracle could not be read, for the answers that drop a value.
func oracleError(chainID string, err error) string {
	return fmt.Sprintf("the oracle on %s could not be read: %v", chainID, err)
}
