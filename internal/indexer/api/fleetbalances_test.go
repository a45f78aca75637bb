package api

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/vmkind"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// balancesChain is one chain of TestFleetBalances: its store, the denoms its rich list was
// given, and the single-chain API over that store (the ground truth).
type balancesChain struct {
	id     string
	vm     vmkind.Kind
	db     *store.DB
	denoms []string
	single http.Handler
}

type balancesAnswer struct {
	Chains []struct {
		ChainID  string `json:"chain_id"`
		RichList bool   `json:"rich_list"`
		Account  string `json:"account"`
		Height   *int64 `json:"height"`
		Balances *[]struct {
			Denom  string `json:"denom"`
			Amount string `json:"amount"`
		} `json:"balances"`
		Truncated bool `json:"truncated"`
	} `json:"chains"`
}

// TestFleetBalances: an account's balances across an EVM chain (0x holders, ERC-20 denoms), a
// Move chain (a 32-byte holder among 20-byte ones) and a Wasm chain keeping no rich list, on
// SQLite and PostgreSQL. For several accounts, each asked in bech32 and in 0x hex, after each
// of two writes, every chain's balances equal the single-chain rich list of each denom
// (/indexer/richlist/v1/{denom}) filtered to the account, zero balances left out, at the
// single-chain /status rich_list_height. A chain still starting is left out; a malformed
// account is a JSON 400.
func TestFleetBalances(t *testing.T) {
	for name, dsn := range map[string]func(t *testing.T, id string) string{
		"sqlite":   func(t *testing.T, id string) string { return "sqlite:" + filepath.Join(t.TempDir(), id+".db") },
		"postgres": func(t *testing.T, _ string) string { return testutil.PostgresDSN(t) },
	} {
		t.Run(name, func(t *testing.T) {
			testFleetBalances(t, func(id string) string { return dsn(t, id) })
		})
	}
}

func testFleetBalances(t *testing.T, dsn func(id string) string) {
	ctx := context.Background()
	acc := func(i byte, n int) []byte { return bytes.Repeat([]byte{i}, n) }
	// Holders 1..5 (20 bytes) and 6 (32 bytes); 7 never holds anything.
	holders := [][]byte{acc(1, 20), acc(2, 20), acc(3, 20), acc(4, 20), acc(5, 20), acc(6, 32)}
	chains := []*balancesChain{
		{id: "evm-1", vm: vmkind.EVM, denoms: []string{"0x00000000000000000000000000000000000000aa", "0x00000000000000000000000000000000000000bb", "0x00000000000000000000000000000000000000cc"}},
		{id: "move-1", vm: vmkind.Move, denoms: []string{"move/0a", "uinit", "uusdc"}},
		{id: "wasm-1", vm: vmkind.Wasm}, // no rich list
	}
	for _, c := range chains {
		db, err := store.Open(ctx, dsn(c.id), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		c.db = db
		f := Features{}
		if c.denoms != nil {
			f = Features{RichList: db, HexHolders: c.vm == vmkind.EVM}
		}
		c.single = New(Config{ChainID: c.id, AccountPrefix: "init", Features: f, RichList: c.denoms != nil}, db, nil, nil)
	}
	// write appends blocks from..to-1 to every chain: each block sets or moves a few balances
	// (some to zero, which the rich list keeps as a holder).
	write := func(from, to int64) {
		for ci, c := range chains {
			var bundles []store.BlockBundle
			for h := from; h < to; h++ {
				blk := store.BlockBundle{Block: store.Block{ChainID: c.id, Height: h, Hash: []byte{byte(ci), byte(h)}, Time: time.Unix(1700000000+h, 0).UTC(), TotalFee: json.RawMessage(`[]`)}}
				if c.denoms != nil {
					rl := &store.RichListChanges{}
					for j := int64(0); j < 2+h%3; j++ {
						k := h*3 + j*5 + int64(ci)
						d, a := c.denoms[k%int64(len(c.denoms))], holders[k%int64(len(holders))]
						if c.vm == vmkind.EVM && len(a) != 20 {
							a = holders[0] // EVM holders are 20 bytes
						}
						amt := big.NewInt(h*1000 + j)
						if k%7 == 0 {
							amt = new(big.Int) // spent: a zero row
						} else if h == 1 && j == 0 {
							amt.Lsh(amt, 200) // beyond int64
						}
						rl.Sets = append(rl.Sets, store.BalanceSet{Denom: d, Account: a, Amount: amt})
					}
					blk.Extensions = append(blk.Extensions, rl)
				}
				bundles = append(bundles, blk)
			}
			if err := c.db.WriteBlocks(ctx, bundles); err != nil {
				t.Fatal(err)
			}
		}
	}
	fleetChains := func() []FleetChain {
		out := []FleetChain{}
		for _, c := range chains {
			out = append(out, FleetChain{ID: c.id, VMType: c.vm.String(), AccountPrefix: "init", Base: "/" + c.id, Ready: true, Reader: c.db})
		}
		// A chain whose store is still opening: left out.
		return append(out, FleetChain{ID: "zz-starting-1", VMType: "wasm", AccountPrefix: "init"})
	}
	h := NewFleet(FleetConfig{Chains: fleetChains}, nil, nil)
	getJSON := func(h http.Handler, path string, v any) {
		t.Helper()
		rec := do(h, path)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
		}
		if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	compared := 0
	for _, batch := range [][2]int64{{1, 12}, {12, 30}} {
		write(batch[0], batch[1])
		for _, a := range append(slices.Clone(holders), acc(7, 20)) {
			b32, err := address.Bech32("init", a)
			if err != nil {
				t.Fatal(err)
			}
			for _, form := range []string{b32, address.Hex(a)} {
				var got balancesAnswer
				getJSON(h, "/all/indexer/richlist/v1/by_account/"+form, &got)
				if len(got.Chains) != len(chains) {
					t.Fatalf("%s: %d chains, want the %d ready ones", form, len(got.Chains), len(chains))
				}
				for i, c := range chains {
					g := got.Chains[i]
					if g.ChainID != c.id {
						t.Fatalf("%s: chain %d is %s, want %s", form, i, g.ChainID, c.id)
					}
					if c.denoms == nil {
						if g.RichList || g.Height != nil || g.Balances != nil || g.Account != "" {
							t.Fatalf("%s on %s (no rich list): %+v", form, c.id, g)
						}
						continue
					}
					// The ground truth: the single-chain rich list of each denom, filtered.
					name := b32
					if c.vm == vmkind.EVM {
						name = address.Hex(a)
					}
					var want []string
					for _, d := range c.denoms {
						var hs struct {
							Holders []holderJSON `json:"holders"`
						}
						getJSON(c.single, "/indexer/richlist/v1/"+url.PathEscape(d)+"?pagination.limit=1000", &hs)
						for _, x := range hs.Holders {
							if x.Account == name && x.Amount != "0" {
								want = append(want, d+"="+x.Amount)
							}
						}
					}
					var st statusJSON
					getJSON(c.single, "/status", &st)
					var gs []string
					if g.Balances != nil {
						for _, b := range *g.Balances {
							gs = append(gs, b.Denom+"="+b.Amount)
						}
					}
					if !g.RichList || g.Balances == nil || g.Height == nil || st.RichListHeight == nil || *g.Height != *st.RichListHeight ||
						g.Account != name || g.Truncated || !slices.Equal(gs, want) {
						t.Fatalf("%s on %s: rich_list %v account %s height %s balances %v\nwant account %s, height %s, balances %v",
							form, c.id, g.RichList, g.Account, deref(g.Height), gs, name, deref(st.RichListHeight), want)
					}
					compared += len(want)
				}
			}
		}
	}
	if compared < 30 {
		t.Fatalf("only %d balances compared: the data holds too little", compared)
	}
	t.Logf("%d balances compared with the single-chain rich lists", compared)
	for _, bad := range []string{"zzz", "init1nrjs8u6apgqeev9z2xkjgwjvel8nw86x8vkeuy", "0x12345g", "cosmos1nrjs8u6apgqeev9z2xkjgwjvel8nw86xl0jny6"} {
		rec := do(h, "/all/indexer/richlist/v1/by_account/"+bad)
		var e struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		if rec.Code != http.StatusBadRequest || json.Unmarshal(rec.Body.Bytes(), &e) != nil || e.Message == "" {
			t.Errorf("%s: %d %s, want a JSON 400", bad, rec.Code, rec.Body)
		}
	}
	// No chain ready: an empty list, and still a 400 for a malformed account.
	empty := NewFleet(FleetConfig{Chains: func() []FleetChain { return nil }}, nil, nil)
	if rec := do(empty, "/all/indexer/richlist/v1/by_account/"+address.Hex(acc(1, 20))); rec.Code != 200 || rec.Body.String() != "{\"chains\":[]}\n" {
		t.Errorf("no chain: %d %s", rec.Code, rec.Body)
	}
	if rec := do(empty, "/all/indexer/richlist/v1/by_account/zzz"); rec.Code != http.StatusBadRequest {
		t.Errorf("no chain, malformed account: %d %s", rec.Code, rec.Body)
	}
}

func deref(p *int64) string {
	if p == nil {
		return "absent"
	}
	return strconv.FormatInt(*p, 10)
}
