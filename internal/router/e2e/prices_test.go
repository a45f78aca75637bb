package e2e

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/chain/comet"
	"github.com/rollgate/rollgate/internal/price"
	"github.com/rollgate/rollgate/internal/router/api"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
	"github.com/rollgate/rollgate/internal/router/wire"
)

// pricedNet is the devnet and a router whose prices come from the devnet L1's Connect
// oracle (over its REST, as from any L1), ages measured in the L1's time (ChainClock, as `up`
// runs it): the devnet's manual blocks keep their own time.
type pricedNet struct {
	tn     *testNet
	reg    *registry.Registry
	prices *price.Service
	url    string
	l1     *comet.Client
}

const pricesMaxAge = 10 * time.Second

func startPricedNet(t *testing.T) *pricedNet {
	t.Helper()
	tn := startNet(t)
	reg, err := registry.Load(tn.dir)
	if err != nil {
		t.Fatal(err)
	}
	pn := &pricedNet{tn: tn, reg: reg}
	if pn.l1, err = comet.New(tn.ln.Endpoints()[l1ID].RPC); err != nil {
		t.Fatal(err)
	}
	pn.prices, err = price.New(price.Config{MaxAge: pricesMaxAge, ChainClock: true},
		func() *registry.Registry { return reg })
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.New(api.Config{Prices: pn.prices, Balances: &registry.RESTBalances{}}, registry.NewLive(reg), nil, prometheus.NewRegistry()))
	t.Cleanup(srv.Close)
	pn.url = srv.URL
	return pn
}

// steps produces n blocks, then reads the oracle as the router's refresh does; it returns the
// L1 height the prices were read at.
func (pn *pricedNet) steps(t *testing.T, n int) int64 {
	t.Helper()
	ctx := context.Background()
	for range n {
		if err := pn.tn.step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	st, err := pn.l1.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := pn.prices.RefreshOracle(ctx); err != nil {
		t.Fatalf("reading the devnet's oracle: %v", err)
	}
	return st.SyncInfo.LatestBlockHeight
}

func (pn *pricedNet) route(t *testing.T, chainID, denom, amount string) (route.Route, map[string]json.RawMessage) {
	t.Helper()
	w := &wallet{t: t, router: pn.url}
	st, body := w.post("/v2/fungible/route", map[string]any{"amount_in": amount, "source_asset_chain_id": chainID, "source_asset_denom": denom,
		"dest_asset_chain_id": chainID, "dest_asset_denom": denom})
	if st != http.StatusOK {
		t.Fatalf("route of %s on %s: %d %s", denom, chainID, st, body)
	}
	var rt route.Route
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &rt); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(body, &raw)
	return rt, raw
}

// pairOf is the devnet oracle pair of an asset, by the rule docs/router-api.md states: the
// symbol of the asset, or of the asset its trace leads back to, against USD.
func pairOf(reg *registry.Registry, a *registry.Asset, pairs []string) string {
	sym := a.Symbol
	if a.OriginChainID != "" {
		if c := reg.Chain(a.OriginChainID); c != nil {
			if o := c.Asset(a.OriginDenom); o != nil && o.Symbol != "" {
				sym = o.Symbol
			}
		}
	}
	p := strings.ToUpper(sym) + "/USD"
	if slices.Contains(pairs, p) {
		return p
	}
	return ""
}

// TestUSDValuesMatchTheOracle: on the devnet, every asset of every chain whose symbol has an
// oracle pair gets usd_amount_in and usd_amount_out equal to amount × the L1 oracle's price
// at the height the router read it ÷ 10^(decimals + the pair's decimals), in cents (ground
// truth: devnet.Network.OraclePrice, the oracle's own state); an asset without a pair, and
// without a second source, has no USD field and price_info says why; a pair the oracle stops
// updating drops its values once older than the bound, and says so, while the others stay.
func TestUSDValuesMatchTheOracle(t *testing.T) {
	pn := startPricedNet(t)
	h := pn.steps(t, 3)
	var pairs []string
	for _, p := range pn.tn.ln.OraclePairs() {
		pairs = append(pairs, p.Pair)
	}
	checked, unpriced := 0, 0
	for _, c := range pn.reg.Chains {
		if c.Type != registry.ChainTypeCosmos {
			continue // the EVM chain's routes are to other chains (LayerZero); its assets are checked below
		}
		for _, a := range c.Assets {
			// 1234.567891 whole tokens, whatever the decimals.
			amount := new(big.Int).Mul(big.NewInt(1234567891), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(a.Decimals)), nil))
			amount.Quo(amount, big.NewInt(1000000))
			rt, raw := pn.route(t, c.ID, a.Denom, amount.String())
			pair := pairOf(pn.reg, a, pairs)
			if pair == "" {
				for _, k := range []string{"usd_amount_in", "usd_amount_out"} {
					if _, ok := raw[k]; ok {
						t.Errorf("%s %s has no oracle pair but %s %s", c.ID, a.Denom, k, raw[k])
					}
				}
				if len(rt.PriceInfo) != 1 || !strings.Contains(rt.PriceInfo[0].Unavailable, "the oracle does not quote") {
					t.Errorf("%s %s: price_info %+v does not say why there is no value", c.ID, a.Denom, rt.PriceInfo)
				}
				unpriced++
				continue
			}
			q, err := pn.tn.ln.OraclePrice(l1ID, pair, h)
			if err != nil {
				t.Fatal(err)
			}
			want := new(big.Rat).SetFrac(new(big.Int).Mul(amount, q.Price),
				new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(a.Decimals)+int64(q.Decimals)), nil)).FloatString(2)
			if rt.USDAmountIn != want || rt.USDAmountOut != want {
				t.Errorf("%s %s (%s at L1 height %d: %s × 10^-%d): usd in %q out %q, want %s", c.ID, a.Denom, pair, h, q.Price, q.Decimals,
					rt.USDAmountIn, rt.USDAmountOut, want)
			}
			pi := rt.PriceInfo[0]
			wantPrice := new(big.Rat).SetFrac(q.Price, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(q.Decimals)), nil))
			if got, ok := new(big.Rat).SetString(pi.Price); !ok || got.Cmp(wantPrice) != 0 || pi.CurrencyPair != pair ||
				pi.Source != price.SourceOracle || pi.Height != q.BlockHeight {
				t.Errorf("%s %s: price_info %+v, want %s of %s at height %d", c.ID, a.Denom, pi, wantPrice.FloatString(int(q.Decimals)), pair, q.BlockHeight)
			}
			checked++
		}
	}
	// ETH on the EVM chain, the one asset the Cosmos routes above do not reach: its balance entry.
	eth := pn.reg.Chain("31337")
	for _, a := range eth.Assets {
		p := pn.prices.Lookup(pn.reg, a)
		if pair := pairOf(pn.reg, a, pairs); pair != "" {
			q, _ := pn.tn.ln.OraclePrice(l1ID, pair, h)
			wantPrice := new(big.Rat).SetFrac(q.Price, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(q.Decimals)), nil))
			if !p.OK || p.USD.Cmp(wantPrice) != 0 {
				t.Errorf("%s on the EVM chain: %+v, want %s", a.Symbol, p, wantPrice.String())
			}
			checked++
		} else if p.OK {
			t.Errorf("%s on the EVM chain has no pair but a price %+v", a.Symbol, p)
		}
	}
	t.Logf("%d assets priced as the oracle says, %d without a pair", checked, unpriced)
	// INIT, USDC and ATOM (and their vouchers) across six chains; MIN and GAS have none.
	if checked < 30 || unpriced < 3 {
		t.Fatalf("checked %d priced and %d unpriced assets; the registry no longer has what this test is about", checked, unpriced)
	}

	// The funded user's INIT on the L1 in /v2/info/balances: price and value_usd from the same
	// quote, the balance read from the chain.
	w := newWallet(t, pn.tn, pn.url, pn.reg)
	user := pn.tn.addr(t, l1ID, 0)
	st, body := w.post("/v2/info/balances", map[string]any{"chains": map[string]any{l1ID: map[string]any{"address": user, "denoms": []string{"uinit"}}}})
	var bal struct {
		Chains map[string]struct {
			Denoms map[string]wire.DenomBalance `json:"denoms"`
		} `json:"chains"`
	}
	if err := json.Unmarshal(body, &bal); st != http.StatusOK || err != nil {
		t.Fatalf("balances: %d %s", st, body)
	}
	q, _ := pn.tn.ln.OraclePrice(l1ID, "INIT/USD", h)
	have := w.balance(l1ID, user, "uinit")
	wantValue := new(big.Rat).SetFrac(new(big.Int).Mul(have, q.Price), new(big.Int).Exp(big.NewInt(10), big.NewInt(6+int64(q.Decimals)), nil)).FloatString(2)
	b := bal.Chains[l1ID].Denoms["uinit"]
	if have.Sign() == 0 || b.ValueUSD == nil || *b.ValueUSD != wantValue || b.Price == nil || *b.Price != price.FormatDecimal(new(big.Rat).SetFrac(q.Price, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(q.Decimals)), nil))) {
		t.Errorf("balances of %s uinit: %s, want value_usd %s (balance %s × %s × 10^-%d)", have, body, wantValue, have, q.Price, q.Decimals)
	}

	if err := pn.tn.ln.FreezeOracle("INIT/USD"); err != nil {
		t.Fatal(err)
	}
	frozenAt, _ := pn.tn.ln.OraclePrice(l1ID, "INIT/USD", 0)
	pn.steps(t, int(pricesMaxAge/time.Second)+3)
	rt, raw := pn.route(t, l1ID, "uinit", "1000000")
	if _, ok := raw["usd_amount_in"]; ok {
		t.Errorf("a frozen INIT/USD still gives a value: %s", raw["usd_amount_in"])
	}
	pi := rt.PriceInfo[0]
	if !strings.HasPrefix(pi.Unavailable, "stale: INIT/USD from connect was last updated") || pi.Height != frozenAt.BlockHeight || pi.AgeSeconds == nil ||
		time.Duration(*pi.AgeSeconds)*time.Second <= pricesMaxAge {
		t.Errorf("stale INIT: price_info %+v (frozen at height %d)", pi, frozenAt.BlockHeight)
	}
	if rt, _ := pn.route(t, l1ID, "uusdc", "1000000"); rt.USDAmountIn == "" {
		t.Errorf("USDC lost its value while only INIT/USD is frozen: %+v", rt.PriceInfo)
	}
	if err := pn.tn.ln.ThawOracle("INIT/USD"); err != nil {
		t.Fatal(err)
	}
	h = pn.steps(t, 1)
	q, _ = pn.tn.ln.OraclePrice(l1ID, "INIT/USD", h)
	if rt, _ := pn.route(t, l1ID, "uinit", "1000000"); rt.USDAmountIn == "" || rt.PriceInfo[0].Height != q.BlockHeight {
		t.Errorf("INIT after the thaw: %q %+v, want the price of height %d", rt.USDAmountIn, rt.PriceInfo, q.BlockHeight)
	}
}
