// Package pricetest serves Skip's Connect x/oracle REST routes (get_all_tickers,
// get_prices, get_price) from prices a test sets, in the gateway's JSON (uint64s as strings,
// RFC 3339 block times: skip-mev/connect@9f85605:proto/connect/oracle/v2/query.proto), for
// the tests (and `rollgate bench route`) of the packages that read prices through
// internal/price.
package pricetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"
)

// Pair is one currency pair's state: Price × 10^-Decimals Quote per Base, set at Height and
// Time. A zero Price means the pair is tracked but has no price yet.
type Pair struct {
	Base, Quote string
	Price       string
	Decimals    int
	Height      int64
	Time        time.Time
}

// ID is the pair as the oracle names it ("INIT/USD").
func (p Pair) ID() string { return p.Base + "/" + p.Quote }

// Oracle is a test server answering the oracle's REST routes.
type Oracle struct {
	*httptest.Server
	mu    sync.Mutex
	pairs []Pair
	down  bool
}

// NewOracle serves pairs until the test ends.
func NewOracle(t testing.TB, pairs ...Pair) *Oracle {
	o := Serve(pairs...)
	t.Cleanup(o.Close)
	return o
}

// Serve serves pairs until Close (benchmarks outside a test).
func Serve(pairs ...Pair) *Oracle {
	o := &Oracle{pairs: slices.Clone(pairs)}
	o.Server = httptest.NewServer(http.HandlerFunc(o.serve))
	return o
}

// Set adds or replaces a pair.
func (o *Oracle) Set(p Pair) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if i := slices.IndexFunc(o.pairs, func(q Pair) bool { return q.ID() == p.ID() }); i >= 0 {
		o.pairs[i] = p
		return
	}
	o.pairs = append(o.pairs, p)
}

// SetDown makes every route answer 503 (down) or serve again.
func (o *Oracle) SetDown(down bool) {
	o.mu.Lock()
	o.down = down
	o.mu.Unlock()
}

type priceJSON struct {
	Price *struct {
		Price          string `json:"price"`
		BlockTimestamp string `json:"block_timestamp"`
		BlockHeight    string `json:"block_height"`
	} `json:"price"`
	Nonce    string `json:"nonce"`
	Decimals string `json:"decimals"`
	ID       string `json:"id"`
}

func (o *Oracle) find(id string) (priceJSON, bool) {
	for i, p := range o.pairs {
		if p.ID() != id || p.Price == "" {
			continue
		}
		r := priceJSON{Nonce: fmt.Sprint(p.Height), Decimals: fmt.Sprint(p.Decimals), ID: fmt.Sprint(i)}
		r.Price = &struct {
			Price          string `json:"price"`
			BlockTimestamp string `json:"block_timestamp"`
			BlockHeight    string `json:"block_height"`
		}{p.Price, p.Time.UTC().Format(time.RFC3339Nano), fmt.Sprint(p.Height)}
		return r, true
	}
	return priceJSON{}, false
}

func (o *Oracle) serve(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.down {
		http.Error(w, `{"code":14,"message":"unavailable","details":[]}`, http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	notTracked := func(id string) {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, `{"code":2,"message":"no price / nonce reported for CurrencyPair: %s, the module is not tracking this CurrencyPair","details":[]}`, id)
	}
	enc := json.NewEncoder(w)
	switch r.URL.Path {
	case "/connect/oracle/v2/get_all_tickers":
		cps := []map[string]string{}
		for _, p := range o.pairs {
			cps = append(cps, map[string]string{"Base": p.Base, "Quote": p.Quote})
		}
		_ = enc.Encode(map[string]any{"currency_pairs": cps})
	case "/connect/oracle/v2/get_prices":
		out := []priceJSON{}
		for _, id := range r.URL.Query()["currency_pair_ids"] {
			p, ok := o.find(id)
			if !ok {
				notTracked(id)
				return
			}
			out = append(out, p)
		}
		_ = enc.Encode(map[string]any{"prices": out})
	case "/connect/oracle/v2/get_price":
		id := r.URL.Query().Get("currency_pair")
		p, ok := o.find(id)
		if !ok {
			notTracked(id)
			return
		}
		_ = enc.Encode(p)
	default:
		w.WriteHeader(http.StatusNotImplemented)
		fmt.Fprintf(w, `{"code":12,"message":"Not Implemented","details":[]}`)
	}
}
