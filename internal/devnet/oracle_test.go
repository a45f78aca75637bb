package devnet_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/devnet"
)

// connectPrice is Connect's GetPriceResponse as the gateway prints it
// (skip-mev/connect:proto/connect/oracle/v2/query.proto, genesis.proto QuotePrice).
type connectPrice struct {
	Price struct {
		Price          string `json:"price"`
		BlockTimestamp string `json:"block_timestamp"`
		BlockHeight    string `json:"block_height"`
	} `json:"price"`
	Nonce    string `json:"nonce"`
	Decimals string `json:"decimals"`
	ID       string `json:"id"`
}

func getAt(t *testing.T, u string, height int64) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
	if height > 0 {
		req.Header.Set("x-cosmos-block-height", strconv.FormatInt(height, 10))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw json.RawMessage
	_ = json.NewDecoder(resp.Body).Decode(&raw)
	return resp.StatusCode, raw
}

func sameTime(s string, t time.Time) bool {
	v, err := time.Parse(time.RFC3339Nano, s)
	return err == nil && v.Equal(t)
}

func checkQuote(t *testing.T, where string, got connectPrice, want devnet.OracleQuote) {
	t.Helper()
	if got.Price.Price != want.Price.String() || got.Price.BlockHeight != strconv.FormatInt(want.BlockHeight, 10) ||
		!sameTime(got.Price.BlockTimestamp, want.BlockTime) || got.Nonce != strconv.FormatUint(want.Nonce, 10) ||
		got.Decimals != strconv.FormatUint(want.Decimals, 10) || got.ID != strconv.FormatUint(want.ID, 10) {
		t.Errorf("%s: served %+v, ground truth %+v", where, got, want)
	}
}

// TestOracleOverHTTP: the L1 and every rollup serve Connect's REST with the prices the
// façade's ground truth gives, at the latest height and at a past one; prices move block to
// block; the rollups hold the L1's prices one block later; a pair without a market (MIN)
// answers as Connect does for an untracked pair; a frozen pair goes stale on every chain.
func TestOracleOverHTTP(t *testing.T) {
	net := startNet(t, 3, 6)
	pairs := net.OraclePairs()
	if len(pairs) < 5 {
		t.Fatalf("pairs %+v", pairs)
	}
	l1, _ := net.Chain("initia-devnet-1")
	code, body := get(t, l1.REST()+"/connect/oracle/v2/get_all_tickers")
	var tickers struct {
		CurrencyPairs []struct{ Base, Quote string } `json:"currency_pairs"`
	}
	if err := json.Unmarshal(body, &tickers); code != 200 || err != nil || len(tickers.CurrencyPairs) != len(pairs) {
		t.Fatalf("get_all_tickers %d: %s", code, body)
	}
	for i, p := range pairs {
		if cp := tickers.CurrencyPairs[i]; cp.Base+"/"+cp.Quote != p.Pair {
			t.Errorf("ticker %d is %+v, pair %s", i, cp, p.Pair)
		}
	}
	for _, c := range net.Chains() {
		for _, h := range []int64{0, 4} {
			for _, p := range pairs {
				want, err := net.OraclePrice(c.ID(), p.Pair, h)
				if err != nil || want.Price == nil {
					t.Fatalf("%s %s at %d: %v %+v", c.ID(), p.Pair, h, err, want)
				}
				code, body := getAt(t, c.REST()+"/connect/oracle/v2/get_price?currency_pair="+url.QueryEscape(p.Pair), h)
				var got connectPrice
				if err := json.Unmarshal(body, &got); code != 200 || err != nil {
					t.Fatalf("%s get_price %s: %d %s", c.ID(), p.Pair, code, body)
				}
				checkQuote(t, c.ID()+" "+p.Pair+" at "+strconv.FormatInt(h, 10), got, want)
			}
		}
		code, body := get(t, c.REST()+"/connect/oracle/v2/get_prices?currency_pair_ids=eth/usd&currency_pair_ids=INIT/USD")
		var many struct{ Prices []connectPrice }
		if err := json.Unmarshal(body, &many); code != 200 || err != nil || len(many.Prices) != 2 {
			t.Fatalf("%s get_prices: %d %s", c.ID(), code, body)
		}
		for i, p := range []string{"ETH/USD", "INIT/USD"} {
			want, _ := net.OraclePrice(c.ID(), p, 0)
			checkQuote(t, c.ID()+" get_prices "+p, many.Prices[i], want)
		}
		code, body = get(t, c.REST()+"/connect/oracle/v2/get_price?currency_pair=MIN/USD")
		if want := `{"code":2, "message":"no price / nonce reported for CurrencyPair: MIN/USD, the module is not tracking this CurrencyPair", "details":[]}`; code != 500 || string(body) != want {
			t.Errorf("%s MIN/USD: %d %s", c.ID(), code, body)
		}
		code, body = get(t, c.REST()+"/connect/oracle/v2/get_price?currency_pair=INIT")
		if code != 500 || !json.Valid(body) {
			t.Errorf("%s malformed pair: %d %s", c.ID(), code, body)
		}
	}

	moved := false
	for h := int64(2); h <= 6; h++ {
		a, _ := net.OraclePrice(l1.ID(), "INIT/USD", h-1)
		b, _ := net.OraclePrice(l1.ID(), "INIT/USD", h)
		moved = moved || a.Price.Cmp(b.Price) != 0
	}
	if !moved {
		t.Error("INIT/USD did not move in five blocks")
	}
	rollup, _ := net.Chain("minievm-devnet-1")
	a, _ := net.OraclePrice(l1.ID(), "ATOM/USD", 5)
	b, _ := net.OraclePrice(rollup.ID(), "ATOM/USD", 6)
	if a.Price.Cmp(b.Price) != 0 || b.BlockHeight != 6 || !a.BlockTime.Equal(b.BlockTime) {
		t.Errorf("rollup at 6 %+v, L1 at 5 %+v", b, a)
	}

	frozenAt := l1.Height()
	if err := net.FreezeOracle("INIT/USD"); err != nil {
		t.Fatal(err)
	}
	if err := net.ProduceBlocks(t.Context(), 4); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*devnet.Chain{l1, rollup} {
		q, _ := net.OraclePrice(c.ID(), "INIT/USD", 0)
		var got connectPrice
		_, body := get(t, c.REST()+"/connect/oracle/v2/get_price?currency_pair=INIT/USD")
		_ = json.Unmarshal(body, &got)
		checkQuote(t, c.ID()+" frozen INIT/USD", got, q)
		_, blk := get(t, l1.RPC()+"/block?height="+strconv.FormatInt(frozenAt, 10))
		var b6 struct {
			Result struct {
				Block struct {
					Header struct{ Time time.Time }
				}
			}
		}
		_ = json.Unmarshal(blk, &b6)
		if wantTime := b6.Result.Block.Header.Time; !q.BlockTime.Equal(wantTime) || c.Height() != frozenAt+4 {
			t.Errorf("%s frozen at L1 height %d: quote time %v (block time %v) at height %d", c.ID(), frozenAt, q.BlockTime, wantTime, c.Height())
		}
		if eth, _ := net.OraclePrice(c.ID(), "ETH/USD", 0); eth.BlockTime.Equal(q.BlockTime) {
			t.Errorf("%s: ETH/USD went stale with INIT/USD", c.ID())
		}
	}
	if err := net.ThawOracle("INIT/USD"); err != nil {
		t.Fatal(err)
	}
	if err := net.ProduceBlock(t.Context()); err != nil {
		t.Fatal(err)
	}
	if q, _ := net.OraclePrice(l1.ID(), "INIT/USD", 0); q.BlockHeight != frozenAt+5 || q.Nonce != uint64(frozenAt+1) {
		t.Errorf("thawed INIT/USD written at %d nonce %d, want %d and %d", q.BlockHeight, q.Nonce, frozenAt+5, frozenAt+1)
	}
	hub, ok := net.Chain("cosmoshub-devnet-1")
	if ok {
		if _, err := net.OraclePrice(hub.ID(), "INIT/USD", 0); err == nil {
			t.Error("the external chain has an oracle")
		}
	}
}
