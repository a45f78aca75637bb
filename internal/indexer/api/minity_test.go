package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/price"
	"github.com/rollgate/rollgate/internal/price/pricetest"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// The devnet's registry (kept current by internal/router/e2e TestDevnetRegistryCopy).
const minityRegistry = "../../router/registry/testdata/devnet"

var minityNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// restBalances answers the chains the fleet keeps no rich list of: the L1 from a fixed set,
// miniwasm never (a chain that does not answer).
type restBalances struct{ l1 map[string]string }

func (r restBalances) Balances(ctx context.Context, c *registry.Chain, addr string) (map[string]string, error) {
	if c.ID == "initia-devnet-1" {
		if !strings.HasPrefix(addr, c.Bech32Prefix+"1") {
			return nil, fmt.Errorf("address %s has not the chain's prefix", addr)
		}
		return r.l1, nil
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// minityFleet is a fleet serving the portfolio over the devnet registry: minievm (EVM, rich
// list under ERC-20 contracts) and minimove (Move, rich list under bank denoms) from stores,
// the L1 and miniwasm from REST. holder holds INIT, USDC, an unlisted denom, and GAS.
func minityFleet(t *testing.T, dsn func(id string) string) (http.Handler, []byte) {
	t.Helper()
	ctx := context.Background()
	holder := bytes.Repeat([]byte{0x42}, 20)
	reg, err := registry.Load(minityRegistry)
	if err != nil {
		t.Fatal(err)
	}
	at := minityNow.Add(-7 * time.Second)
	o := pricetest.NewOracle(t,
		pricetest.Pair{Base: "INIT", Quote: "USD", Price: "51234567", Decimals: 8, Height: 1200, Time: at},
		pricetest.Pair{Base: "USDC", Quote: "USD", Price: "1000012000", Decimals: 9, Height: 1200, Time: at})
	ps, err := price.New(price.Config{OracleREST: o.URL, Now: func() time.Time { return minityNow }}, func() *registry.Registry { return reg })
	if err != nil {
		t.Fatal(err)
	}
	if err := ps.RefreshOracle(ctx); err != nil {
		t.Fatal(err)
	}
	const gasContract = "0x00000000000000000000000000000000000000aa"
	wrapped := "0x7b1539c8e90a61273fb3efb20aa4b3763177aa16" // evm/7b15…: the wrapper token
	e18 := new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)
	chains := []struct {
		id   string
		vm   vmkind.Kind
		sets []store.BalanceSet
		as   map[string]string
	}{
		{"minievm-devnet-1", vmkind.EVM, []store.BalanceSet{
			{Denom: gasContract, Account: holder, Amount: new(big.Int).Mul(big.NewInt(3), e18)},
			{Denom: wrapped, Account: holder, Amount: new(big.Int).Mul(big.NewInt(2), e18)},
			{Denom: "0x00000000000000000000000000000000000000bb", Account: holder, Amount: big.NewInt(5)},
		}, map[string]string{"gas": gasContract}},
		{"minimove-devnet-1", vmkind.Move, []store.BalanceSet{
			{Denom: "umin", Account: holder, Amount: big.NewInt(1500000)},
			{Denom: "uusdc", Account: holder, Amount: big.NewInt(12345678)},
			{Denom: "uusdc", Account: bytes.Repeat([]byte{9}, 20), Amount: big.NewInt(1)},
		}, nil},
	}
	var fcs []FleetChain
	for _, c := range chains {
		db, err := store.Open(ctx, dsn(c.id), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		blk := store.BlockBundle{Block: store.Block{ChainID: c.id, Height: 5, Hash: []byte{5}, Time: minityNow, TotalFee: json.RawMessage(`[]`)},
			Extensions: []store.ExtensionRows{&store.RichListChanges{Sets: c.sets, Aliases: c.as}}}
		if err := db.WriteBlocks(ctx, []store.BlockBundle{blk}); err != nil {
			t.Fatal(err)
		}
		fcs = append(fcs, FleetChain{ID: c.id, VMType: c.vm.String(), AccountPrefix: "init", Base: "/" + c.id, Ready: true, Reader: db})
	}
	h := NewFleet(FleetConfig{Chains: func() []FleetChain { return fcs }, Portfolio: &PortfolioConfig{
		Registry: func() *registry.Registry { return reg }, Prices: ps, ChainTimeout: 300 * time.Millisecond,
		REST: restBalances{l1: map[string]string{"uinit": "2500000", "uusdc": "0", "ufoo": "7"}},
	}}, nil, nil)
	return h, holder
}

func minityStores() map[string]func(t *testing.T) func(id string) string {
	return map[string]func(t *testing.T) func(id string) string{
		"sqlite": func(t *testing.T) func(string) string {
			dir := t.TempDir()
			return func(id string) string { return "sqlite:" + filepath.Join(dir, id+".db") }
		},
		"postgres": func(t *testing.T) func(string) string {
			return func(string) string { return testutil.PostgresDSN(t) }
		},
	}
}

// TestMinityGolden: the REST routes InterwovenKit's portfolio reads from Minity
// (initia-labs/interwovenkit@913e480:packages/interwovenkit-react/src/data/minity/
// query-keys.ts: v1/supported-chains, v1/prices, v1/chain/{name}/{address}/balances; their
// types in types.ts: SupportedChains, Prices, Balance[]), on SQLite and PostgreSQL stores.
func TestMinityGolden(t *testing.T) {
	for name, dsn := range minityStores() {
		t.Run(name, func(t *testing.T) {
			h, holder := minityFleet(t, dsn(t))
			b32, _ := address.Bech32("init", holder)
			for _, c := range []struct{ name, path string }{
				{"supported_chains", "/minity/v1/supported-chains"},
				{"prices", "/minity/v1/prices"},
				{"balances_l1_rest", "/minity/v1/chain/initia/" + b32 + "/balances"},
				{"balances_minievm_rich_list", "/minity/v1/chain/minievm/" + address.Hex(holder) + "/balances"},
				{"balances_minimove_rich_list", "/minity/v1/chain/minimove/" + b32 + "/balances"},
				{"balances_chain_not_answering", "/minity/v1/chain/miniwasm/" + b32 + "/balances"},
				{"balances_unknown_chain", "/minity/v1/chain/nope/" + b32 + "/balances"},
				{"balances_bad_address", "/minity/v1/chain/initia/init1nope/balances"},
			} {
				rec := do(h, c.path)
				var v any
				if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
					t.Fatalf("%s: not JSON: %s", c.path, rec.Body)
				}
				out, _ := json.MarshalIndent(map[string]any{"status": rec.Code, "body": v}, "", "  ")
				testutil.Golden(t, "minity/"+c.name+".json", append(out, '\n'))
			}
		})
	}
}

// TestMinityStream: v1/chain/all/{address} (minity/hooks.ts usePortfolioSSE: EventSource,
// onmessage JSON events of types.ts SSEBalanceEvent) sends one event per Initia chain of the
// registry and ends: a chain that does not answer is an error event after the chain timeout,
// not a hang.
func TestMinityStream(t *testing.T) {
	h, holder := minityFleet(t, minityStores()["sqlite"](t))
	srv := httptest.NewServer(h)
	defer srv.Close()
	b32, _ := address.Bech32("init", holder)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/minity/v1/chain/all/"+b32, nil)
	req.Header.Set("Accept", "text/event-stream")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("content type %q", ct)
	}
	var events []map[string]any
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "event:") {
			t.Errorf("a named event (%s): InterwovenKit reads only onmessage", line)
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var ev map[string]any
			if err := json.Unmarshal([]byte(data), &ev); err != nil {
				t.Fatalf("event %q: %v", data, err)
			}
			events = append(events, ev)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("the stream did not end cleanly: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the stream took %s to end", d)
	}
	slices.SortFunc(events, func(a, b map[string]any) int { return strings.Compare(a["chainId"].(string), b["chainId"].(string)) })
	out, _ := json.MarshalIndent(events, "", "  ")
	testutil.Golden(t, "minity/stream_all.json", append(out, '\n'))
	if len(events) != 4 {
		t.Fatalf("%d events, want one per Initia chain (4)", len(events))
	}
	if events[3]["type"] != "error" || events[3]["chain"] != "miniwasm" {
		t.Errorf("the chain that does not answer: %v", events[3])
	}
}
