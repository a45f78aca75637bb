package api

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
)

// TestRouteUSDValues: a route's usd_amount_in/out are amount × the oracle price ÷
// 10^decimals in cents; an asset whose price is stale or unknown has no USD field (not 0) and
// price_info says why.
func TestRouteUSDValues(t *testing.T) {
	h := newServer(t)
	for _, c := range []struct {
		name                     string
		chain, denom, to, toDen  string
		amount                   string
		wantIn, wantOut, because string
	}{
		// 123.456789 INIT × 0.51234567 = 63.2527... → 63.25
		{"INIT deposit", l1, "uinit", mevm, initL2EVM, "123456789", "63.25", "63.25", ""},
		// 2.5 USDC × 1.000012 = 2.50003 → 2.50.
		{"USDC", l1, "uusdc", l1, "uusdc", "2500000", "2.50", "2.50", ""},
		{"stale ATOM", hub, "uatom", l1, atomL1, "1000000", "", "", "stale: ATOM/USD from connect was last updated 9m0s ago (height 690), beyond the 5m0s bound"},
		{"no pair", mmov, "umin", mmov, "umin", "1000000", "", "", "the oracle does not quote MIN/USD and the asset has no coingecko_id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, body := do(t, h, http.MethodPost, "/v2/fungible/route", map[string]any{"amount_in": c.amount,
				"source_asset_chain_id": c.chain, "source_asset_denom": c.denom, "dest_asset_chain_id": c.to, "dest_asset_denom": c.toDen})
			if st != http.StatusOK {
				t.Fatalf("%d %s", st, body)
			}
			var raw map[string]json.RawMessage
			var rt route.Route
			if err := json.Unmarshal(body, &raw); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(body, &rt); err != nil {
				t.Fatal(err)
			}
			if rt.USDAmountIn != c.wantIn || rt.USDAmountOut != c.wantOut {
				t.Fatalf("usd in %q out %q, want %q %q", rt.USDAmountIn, rt.USDAmountOut, c.wantIn, c.wantOut)
			}
			_, hasIn := raw["usd_amount_in"]
			if hasIn != (c.wantIn != "") {
				t.Errorf("usd_amount_in present %v: %s", hasIn, body)
			}
			if len(rt.PriceInfo) == 0 {
				t.Fatalf("no price_info: %s", body)
			}
			pi := rt.PriceInfo[0]
			if pi.ChainID != c.chain || pi.Denom != c.denom || pi.Unavailable != c.because {
				t.Errorf("price_info %+v, want %s %s unavailable %q", pi, c.chain, c.denom, c.because)
			}
			if c.because == "" && (pi.Source != "connect" || pi.AgeSeconds == nil || *pi.AgeSeconds != 7 || pi.Height != 1200) {
				t.Errorf("price_info %+v does not say source, age and height", pi)
			}
		})
	}
}

// TestNoPricesNoFields: a router without a price source answers as before, without a USD
// field or price_info anywhere.
func TestNoPricesNoFields(t *testing.T) {
	reg, err := registry.Load(devnetRegistry)
	if err != nil {
		t.Fatal(err)
	}
	h := New(Config{Now: func() time.Time { return testNow }, Balances: fakeBalances{}}, registry.NewLive(reg), nil, prometheus.NewRegistry())
	_, body := do(t, h, http.MethodPost, "/v2/fungible/route", map[string]any{"amount_in": "1000000",
		"source_asset_chain_id": l1, "source_asset_denom": "uinit", "dest_asset_chain_id": mevm, "dest_asset_denom": initL2EVM})
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"usd_amount_in", "usd_amount_out", "price_info"} {
		if _, ok := raw[k]; ok {
			t.Errorf("%s present without prices: %s", k, body)
		}
	}
	_, body = do(t, h, http.MethodPost, "/v2/info/balances", map[string]any{"chains": map[string]any{l1: map[string]any{"address": userInit, "denoms": []string{"uinit"}}}})
	var b struct {
		Chains map[string]struct {
			Denoms map[string]map[string]any `json:"denoms"`
		} `json:"chains"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	e := b.Chains[l1].Denoms["uinit"]
	for _, k := range []string{"price", "value_usd", "price_info"} {
		if _, ok := e[k]; ok {
			t.Errorf("balances %s present without prices: %s", k, body)
		}
	}
}
