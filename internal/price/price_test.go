package price

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// The devnet's registry (kept current by internal/router/e2e TestDevnetRegistryCopy).
const devnetRegistry = "../router/registry/testdata/devnet"

const (
	l1   = "initia-devnet-1"
	mevm = "minievm-devnet-1"
	mmov = "minimove-devnet-1"
	hub  = "cosmoshub-devnet-1"
)

var testNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// oracleServer answers Connect's x/oracle REST routes from the recorded bodies under
// testdata/connect, as the gateway does: get_prices fails as a whole when one asked pair has
// no price (skip-mev/connect@9f85605:x/oracle/keeper/grpc_query.go), get_price answers one.
type oracleServer struct {
	*httptest.Server
	tickers []byte
	prices  map[string]json.RawMessage
	down    atomic.Bool
	calls   atomic.Int64
}

func newOracle(t *testing.T) *oracleServer {
	t.Helper()
	o := &oracleServer{tickers: readFile(t, "testdata/connect/get_all_tickers.json")}
	if err := json.Unmarshal(readFile(t, "testdata/connect/prices.json"), &o.prices); err != nil {
		t.Fatal(err)
	}
	o.Server = httptest.NewServer(http.HandlerFunc(o.serve))
	t.Cleanup(o.Close)
	return o
}

func (o *oracleServer) serve(w http.ResponseWriter, r *http.Request) {
	o.calls.Add(1)
	if o.down.Load() {
		http.Error(w, `{"code":14,"message":"unavailable"}`, http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	notTracked := func(p string) {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, `{"code":2,"message":"no price / nonce reported for CurrencyPair: %s, the module is not tracking this CurrencyPair","details":[]}`, p)
	}
	switch r.URL.Path {
	case pathTickers:
		w.Write(o.tickers)
	case pathPrices:
		var out []json.RawMessage
		for _, p := range r.URL.Query()["currency_pair_ids"] {
			b, ok := o.prices[p]
			if !ok {
				notTracked(p)
				return
			}
			out = append(out, b)
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"prices": out})
	case "/cosmos/base/tendermint/v1beta1/blocks/latest":
		fmt.Fprint(w, `{"block_id":{},"block":{"header":{"chain_id":"initia-devnet-1","height":"1201","time":"2026-01-02T03:04:00.250Z"}}}`)
	case pathPrice:
		p := r.URL.Query().Get("currency_pair")
		b, ok := o.prices[p]
		if !ok {
			notTracked(p)
			return
		}
		w.Write(b)
	default:
		http.NotFound(w, r)
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// devnet loads the devnet registry with the L1's REST pointed at url.
func devnet(t *testing.T, url string) *registry.Registry {
	t.Helper()
	reg, err := registry.Load(devnetRegistry)
	if err != nil {
		t.Fatal(err)
	}
	reg.Chain(l1).REST = []string{url}
	return reg
}

func fastOptions() []httpx.Option {
	return []httpx.Option{httpx.WithMaxAttempts(1), httpx.WithTimeout(2 * time.Second)}
}

func newService(t *testing.T, reg *registry.Registry, cfg Config) *Service {
	t.Helper()
	cfg.Now = func() time.Time { return testNow }
	cfg.Options = fastOptions()
	s, err := New(cfg, func() *registry.Registry { return reg })
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func asset(t *testing.T, reg *registry.Registry, chainID, denom string) *registry.Asset {
	t.Helper()
	a := reg.Chain(chainID).Asset(denom)
	if a == nil {
		t.Fatalf("%s has no %s", chainID, denom)
	}
	return a
}

func rat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic(s)
	}
	return r
}

func TestOracleLookup(t *testing.T) {
	o := newOracle(t)
	reg := devnet(t, o.URL)
	s := newService(t, reg, Config{Mapping: Mapping{Symbols: map[string]string{"MIN": NoPair}}})
	if p := s.Lookup(reg, asset(t, reg, l1, "uinit")); p.OK || !strings.Contains(p.Reason, "not been read") {
		t.Fatalf("before the first read: %+v", p)
	}
	if err := s.RefreshOracle(context.Background()); err != nil {
		t.Fatal(err)
	}
	initOnEVM := registry.L2Denom(1, "uinit")
	cases := []struct {
		name, chain, denom string
		usd, ref           string // "" usd: absent
		height             int64
		age                int64
		reason             string // a substring of Reason when absent
	}{
		{"native by symbol", l1, "uinit", "0.51234567", "INIT/USD", 1200, 6, ""},
		{"OPinit voucher priced as its origin", mevm, initOnEVM, "0.51234567", "INIT/USD", 1200, 6, ""},
		{"IBC voucher priced as its origin", hub, registry.IBCDenom("transfer/channel-0/uinit"), "0.51234567", "INIT/USD", 1200, 6, ""},
		{"nine-decimal pair", l1, "uusdc", "1.000012", "USDC/USD", 1200, 6, ""},
		{"stale beyond the bound", hub, "uatom", "", "ATOM/USD", 690, 544, "stale: ATOM/USD from connect was last updated 9m4s ago (height 690), beyond the 5m0s bound"},
		{"mapping takes it off the oracle", mmov, "umin", "", "", 0, 0, "the price mapping takes this asset off the oracle"},
		{"no pair, no coingecko id", mevm, "GAS", "", "", 0, 0, "the oracle does not quote GAS/USD and the asset has no coingecko_id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := s.Lookup(reg, asset(t, reg, c.chain, c.denom))
			if c.usd == "" {
				if p.OK || p.USD != nil {
					t.Fatalf("want no price, got %+v", p)
				}
				if !strings.Contains(p.Reason, c.reason) {
					t.Fatalf("reason %q, want it to say %q", p.Reason, c.reason)
				}
			} else {
				if !p.OK || p.USD.Cmp(rat(c.usd)) != 0 {
					t.Fatalf("want %s, got %+v", c.usd, p)
				}
				if p.Source != SourceOracle {
					t.Errorf("source %q", p.Source)
				}
			}
			if p.Ref != c.ref || p.Height != c.height || p.AgeSeconds() != c.age {
				t.Errorf("ref %q height %d age %d, want %q %d %d", p.Ref, p.Height, p.AgeSeconds(), c.ref, c.height, c.age)
			}
		})
	}
}

func TestOracleBatchFallsBackPairByPair(t *testing.T) {
	o := newOracle(t)
	reg := devnet(t, o.URL)
	s := newService(t, reg, Config{})
	if err := s.RefreshOracle(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := s.Status()
	// BTC, ETH, INIT, USDC, ATOM: NEW/USD has no price yet and TIA/USDT is not in dollars.
	if st.OraclePairs != 5 || st.OracleError != "" || !st.OracleReadAt.Equal(testNow) {
		t.Fatalf("status %+v", st)
	}
	// One get_all_tickers, one failed get_prices, six get_price (one per USD pair).
	if n := o.calls.Load(); n != 8 {
		t.Errorf("%d oracle calls, want 8", n)
	}
	if p := s.Lookup(reg, asset(t, reg, "31337", "ethereum-devnet-native")); !p.OK || p.USD.Cmp(rat("3456.789012")) != 0 {
		t.Errorf("ETH %+v", p)
	}
	prom := prometheus.NewRegistry()
	if err := s.Register(prom, "test"); err != nil {
		t.Fatal(err)
	}
	mfs, err := prom.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		got[mf.GetName()] = mf.GetMetric()[0].GetGauge().GetValue()
	}
	if got["test_price_oracle_quotes"] != 5 || got["test_price_oracle_read_age_seconds"] != 0 || len(got) != 2 {
		t.Errorf("gauges %v", got)
	}
}

func TestOracleDownKeepsQuotesUntilStale(t *testing.T) {
	o := newOracle(t)
	reg := devnet(t, o.URL)
	now := testNow
	s, err := New(Config{Options: fastOptions(), Now: func() time.Time { return now }}, func() *registry.Registry { return reg })
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RefreshOracle(context.Background()); err != nil {
		t.Fatal(err)
	}
	o.down.Store(true)
	if err := s.RefreshOracle(context.Background()); err == nil {
		t.Fatal("a refresh against a down oracle succeeded")
	}
	uinit := asset(t, reg, l1, "uinit")
	if p := s.Lookup(reg, uinit); !p.OK {
		t.Fatalf("a quote read before the outage is dropped at once: %+v", p)
	}
	now = now.Add(5 * time.Minute)
	p := s.Lookup(reg, uinit)
	if p.OK || !strings.HasPrefix(p.Reason, "stale: INIT/USD") {
		t.Fatalf("past the bound: %+v", p)
	}
	if st := s.Status(); !strings.Contains(st.OracleError, "the oracle on initia-devnet-1 could not be read") {
		t.Errorf("status error %q", st.OracleError)
	}
}

func TestOracleNeverReadSaysWhy(t *testing.T) {
	o := newOracle(t)
	o.down.Store(true)
	reg := devnet(t, "http://user:hunter2@"+strings.TrimPrefix(o.URL, "http://"))
	s := newService(t, reg, Config{})
	if err := s.RefreshOracle(context.Background()); err == nil {
		t.Fatal("no error")
	}
	p := s.Lookup(reg, asset(t, reg, l1, "uinit"))
	if p.OK || !strings.Contains(p.Reason, "no INIT/USD price: the oracle on initia-devnet-1 could not be read") {
		t.Fatalf("%+v", p)
	}
	if strings.Contains(p.Reason, "hunter2") || strings.Contains(s.Status().OracleError, "hunter2") {
		t.Errorf("the REST credentials leak: %q", p.Reason)
	}
}

// geckoServer answers simple/price from testdata/coingecko/simple_price.json for the ids
// asked, and 401 (echoing the key, as a careless upstream might) without the right key.
func geckoServer(t *testing.T, key string) (*httptest.Server, *atomic.Value) {
	t.Helper()
	var body map[string]json.RawMessage
	if err := json.Unmarshal(readFile(t, "testdata/coingecko/simple_price.json"), &body); err != nil {
		t.Fatal(err)
	}
	var asked atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v3/simple/price" {
			http.NotFound(w, r)
			return
		}
		if got := r.Header.Get(DefaultKeyHeader); got != key {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"status":{"error_code":10002,"error_message":"invalid key %s"}}`, got)
			return
		}
		q := r.URL.Query()
		asked.Store(q.Encode())
		if q.Get("vs_currencies") != "usd" || q.Get("include_last_updated_at") != "true" {
			http.Error(w, "bad query", http.StatusBadRequest)
			return
		}
		out := map[string]json.RawMessage{}
		for _, id := range strings.Split(q.Get("ids"), ",") {
			if b, ok := body[id]; ok {
				out[id] = b
			}
		}
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv, &asked
}

func TestCoinGeckoSecondSource(t *testing.T) {
	o := newOracle(t)
	gs, asked := geckoServer(t, "K3YVAL")
	reg := devnet(t, o.URL)
	asset(t, reg, mevm, "GAS").CoingeckoID = "minimove-gas"
	asset(t, reg, mmov, "umin").CoingeckoID = "zero-token"
	asset(t, reg, l1, "uinit").CoingeckoID = "initia" // quoted by the oracle: never asked
	s := newService(t, reg, Config{CoinGecko: CoinGecko{URL: gs.URL + "/api/v3/", Key: "K3YVAL"}})
	ctx := context.Background()
	if err := s.RefreshOracle(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.RefreshCoinGecko(ctx); err != nil {
		t.Fatal(err)
	}
	if q, _ := asked.Load().(string); !strings.Contains(q, "ids=minimove-gas%2Czero-token&") {
		t.Errorf("asked %q; want the two ids the oracle does not quote", q)
	}
	p := s.Lookup(reg, asset(t, reg, mevm, "GAS"))
	if !p.OK || p.Source != SourceCoinGecko || p.Ref != "minimove-gas" || p.USD.Cmp(rat("0.0123456789")) != 0 || p.AgeSeconds() != 45 {
		t.Fatalf("GAS %+v", p)
	}
	if FormatDecimal(p.USD) != "0.0123456789" {
		t.Errorf("printed %s", FormatDecimal(p.USD))
	}
	if p := s.Lookup(reg, asset(t, reg, mmov, "umin")); p.OK || p.Reason != "coingecko has no price for zero-token" {
		t.Errorf("a zero usd is a price: %+v", p)
	}
	if p := s.Lookup(reg, asset(t, reg, l1, "uinit")); p.Source != SourceOracle {
		t.Errorf("the oracle's asset came from %s", p.Source)
	}
}

func TestCoinGeckoKeyNeverEchoed(t *testing.T) {
	o := newOracle(t)
	gs, _ := geckoServer(t, "the-right-key")
	reg := devnet(t, o.URL)
	asset(t, reg, mevm, "GAS").CoingeckoID = "minimove-gas"
	s := newService(t, reg, Config{CoinGecko: CoinGecko{URL: gs.URL + "/api/v3", Key: "K3YVAL"}})
	err := s.RefreshCoinGecko(context.Background())
	if err == nil {
		t.Fatal("a refused key is no error")
	}
	p := s.Lookup(reg, asset(t, reg, mevm, "GAS"))
	for _, text := range []string{err.Error(), p.Reason, s.Status().GeckoError} {
		if strings.Contains(text, "K3YVAL") {
			t.Errorf("the key is echoed: %q", text)
		}
	}
	if !strings.Contains(p.Reason, "HTTP 401") {
		t.Errorf("reason %q does not say what the source answered", p.Reason)
	}
}

func TestMapping(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, fmt.Sprintf("m%d.json", len(body)))
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct{ body, err string }{
		{`{"symbols":{"WETH":"ETH/USD"},"denoms":{"minimove-devnet-1":{"umin":"btc/usd"}}}`, ""},
		{`{"symbols":{"X":"-"}}`, ""},
		{`{"symbol":{"WETH":"ETH/USD"}}`, "unknown field"},
		{`{"symbols":{"TIA":"TIA/USDT"}}`, "quoted in USDT"},
		{`{"symbols":{"TIA":"TIA"}}`, "not a currency pair"},
	} {
		_, err := LoadMapping(write(c.body))
		if (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: err %v, want %q", c.body, err, c.err)
		}
	}
	o := newOracle(t)
	reg := devnet(t, o.URL)
	m, err := LoadMapping(write(`{"symbols":{"min":"ETH/USD"},"denoms":{"minimove-devnet-1":{"umin":"btc/usd"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	s := newService(t, reg, Config{Mapping: m})
	if err := s.RefreshOracle(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The denom entry wins over the symbol entry; the symbol entry (any case) prices the rest.
	if p := s.Lookup(reg, asset(t, reg, mmov, "umin")); p.Ref != "BTC/USD" || p.USD.Cmp(rat("97123.456789")) != 0 {
		t.Errorf("umin on minimove %+v", p)
	}
	if p := s.Lookup(reg, asset(t, reg, "miniwasm-devnet-1", "umin")); p.Ref != "ETH/USD" {
		t.Errorf("umin on miniwasm %+v", p)
	}
}

func TestValueAndFormat(t *testing.T) {
	for _, c := range []struct {
		amount   string
		decimals int
		usd      string
		value    string // "" : not a value
		usdText  string
	}{
		{"1234567", 6, "0.51234567", "0.63252505677489", "0.63"},
		{"1000000000000000000", 18, "3456.789012", "3456.789012", "3456.79"},
		{"5", 0, "0.001", "0.005", "0.01"}, // a half cent rounds away from zero, as clients show
		{"4", 0, "0.001", "0.004", "0.00"},
		{"0", 6, "2", "0", "0.00"},
		{"115792089237316195423570985008687907853269984665640564039457584007913129639935", 18, "1", "115792089237316195423570985008687907853269984665640564039457.584007913129639935", "115792089237316195423570985008687907853269984665640564039457.58"},
		{"-1", 6, "1", "", ""},
		{"1.5", 6, "1", "", ""},
	} {
		v, ok := Value(c.amount, c.decimals, rat(c.usd))
		if c.value == "" {
			if ok {
				t.Errorf("%s: a value %s", c.amount, v)
			}
			continue
		}
		if !ok || FormatDecimal(v) != c.value || FormatUSD(v) != c.usdText {
			t.Errorf("%s × %s ÷ 10^%d = %v %q %q, want %s %s", c.amount, c.usd, c.decimals, ok, FormatDecimal(v), FormatUSD(v), c.value, c.usdText)
		}
	}
	if got := FormatDecimal(new(big.Rat).SetFrac64(1, 3)); got != "0.333333333333333333" {
		t.Errorf("a third %s", got)
	}
}

// TestChainClock: with ChainClock, ages are in the L1's time: a clock a year ahead of the
// chain does not make its fresh prices stale, and a price the chain left behind still ages.
func TestChainClock(t *testing.T) {
	o := newOracle(t)
	reg := devnet(t, o.URL)
	now := testNow.AddDate(1, 0, 0)
	for _, chainClock := range []bool{false, true} {
		s, err := New(Config{Options: fastOptions(), ChainClock: chainClock, Now: func() time.Time { return now }}, func() *registry.Registry { return reg })
		if err != nil {
			t.Fatal(err)
		}
		if err := s.RefreshOracle(context.Background()); err != nil {
			t.Fatal(err)
		}
		p := s.Lookup(reg, asset(t, reg, l1, "uinit"))
		if chainClock {
			// The chain's head is 2 s after the price: age 2 s.
			if !p.OK || p.AgeSeconds() != 2 {
				t.Errorf("chain clock: %+v", p)
			}
			if a := s.Lookup(reg, asset(t, reg, hub, "uatom")); a.OK || !strings.Contains(a.Reason, "last updated 8m59s ago") {
				t.Errorf("chain clock, ATOM: %+v", a)
			}
		} else if p.OK {
			t.Errorf("wall clock a year on: a price %+v", p)
		}
	}
}
