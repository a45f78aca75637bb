package fleet_test

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/indexer/fleet"
	"github.com/rollgate/rollgate/internal/testutil"
)

// richRows reads a chain store's rich_list rows (denom, account hex) from its dump: the denoms
// and the holders the test walks.
func richRows(t *testing.T, dsn string) (denoms []string, holders map[string][]string) {
	t.Helper()
	holders = map[string][]string{} // account hex → denoms
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(storeDump(t, dsn)))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			section = strings.Fields(line)[1]
			continue
		}
		f := strings.Split(line, "\t")
		switch section {
		case "rich_list_denom":
			d, err := strconv.Unquote(f[0])
			if err != nil {
				t.Fatal(err)
			}
			denoms = append(denoms, d)
		case "rich_list":
			d, err := strconv.Unquote(f[0])
			if err != nil {
				t.Fatal(err)
			}
			holders[f[1]] = append(holders[f[1]], d)
		}
	}
	return denoms, holders
}

// TestCrossRollupBalances: the three captured chains (EVM and Wasm with a rich list, Move
// without) in one fleet, on SQLite and PostgreSQL. For the accounts holding the most denoms, one
// holding nothing and, each asked in bech32 and 0x hex, the fleet's balances view equals, chain by
// chain, the chain's own /{chain_id}/indexer/richlist/v1/{denom} of every denom (paged through)
// filtered to the account, zero balances left out, at its /status rich_list_height.
func TestCrossRollupBalances(t *testing.T) {
	backends := []struct {
		name    string
		fleetDB func(t *testing.T) string
		chainDB func(fleetDB, id string) string // a chain's store, as the fleet lays it out
	}{
		{"sqlite", func(t *testing.T) string { return "sqlite:" + t.TempDir() },
			func(db, id string) string {
				return "sqlite:" + filepath.Join(strings.TrimPrefix(db, "sqlite:"), id+".db")
			}},
		{"postgres", func(t *testing.T) string { return testutil.PostgresDSN(t) }, func(db, id string) string {
			u, _ := url.Parse(db)
			q := u.Query()
			q.Set("search_path", "chain_"+strings.ReplaceAll(id, "-", "_"))
			u.RawQuery = q.Encode()
			return u.String()
		}},
	}
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			chains := capturedChains(t)
			slices.SortFunc(chains, func(a, b *captured) int { return strings.Compare(a.id, b.id) })
			var specs []fleet.Chain
			for _, c := range chains {
				specs = append(specs, c.spec())
			}
			file := filepath.Join(t.TempDir(), "chains.json")
			writeChains(t, file, specs...)
			fleetDB := be.fleetDB(t)
			_, srv := startFleet(t, fleet.Config{Chains: file, DB: fleetDB, Reload: -1, Ingest: fastIngest(), MaxConns: 8, Budget: 16})
			// The accounts to walk: on each chain with a rich list, the three holding most denoms.
			var accounts [][]byte
			denomsOf := map[string][]string{}
			for _, c := range chains {
				waitHeight(t, srv.URL+"/"+c.id, c.top, 3*time.Minute)
				if !c.richList {
					continue
				}
				denoms, holders := richRows(t, be.chainDB(fleetDB, c.id))
				denomsOf[c.id] = denoms
				var accs []string
				for a := range holders {
					accs = append(accs, a)
				}
				slices.SortFunc(accs, func(a, b string) int {
					if n := len(holders[b]) - len(holders[a]); n != 0 {
						return n
					}
					return strings.Compare(a, b)
				})
				for _, a := range accs[:min(3, len(accs))] {
					b, err := hex.DecodeString(a)
					if err != nil {
						t.Fatal(err)
					}
					accounts = append(accounts, b)
				}
				t.Logf("%s: %d denoms, %d holders", c.id, len(denoms), len(holders))
			}
			accounts = append(accounts, bytes.Repeat([]byte{0xee}, 20)) // holds nothing anywhere
			fetch := func(u string, v any) {
				t.Helper()
				st, _, b := get(t, u, "")
				if st != http.StatusOK || json.Unmarshal(b, v) != nil {
					t.Fatalf("%s: %d %.300s", u, st, b)
				}
			}
			// holdersOf pages through one denom's single-chain rich list.
			holdersOf := func(c *captured, denom string) map[string]string {
				out := map[string]string{}
				for off := 0; ; off += 1000 {
					var page struct {
						Holders []struct{ Account, Amount string } `json:"holders"`
					}
					fetch(fmt.Sprintf("%s/%s/indexer/richlist/v1/%s?pagination.limit=1000&pagination.offset=%d", srv.URL, c.id, url.PathEscape(denom), off), &page)
					for _, h := range page.Holders {
						out[h.Account] = h.Amount
					}
					if len(page.Holders) < 1000 {
						return out
					}
				}
			}
			lists := map[string]map[string]map[string]string{} // chain → denom → holder → amount
			for _, c := range chains {
				lists[c.id] = map[string]map[string]string{}
				for _, d := range denomsOf[c.id] {
					lists[c.id][d] = holdersOf(c, d)
				}
			}
			compared := 0
			for _, a := range accounts {
				b32, err := address.Bech32("init", a)
				if err != nil {
					t.Fatal(err)
				}
				for _, form := range []string{b32, address.Hex(a)} {
					var got struct {
						Chains []struct {
							ChainID  string `json:"chain_id"`
							RichList bool   `json:"rich_list"`
							Account  string `json:"account"`
							Height   *int64 `json:"height"`
							Balances []struct {
								Denom, Amount string
							} `json:"balances"`
						} `json:"chains"`
					}
					fetch(srv.URL+"/all/indexer/richlist/v1/by_account/"+form, &got)
					if len(got.Chains) != len(chains) {
						t.Fatalf("%s: %d chains, want %d", form, len(got.Chains), len(chains))
					}
					for i, c := range chains {
						g := got.Chains[i]
						if g.ChainID != c.id || g.RichList != c.richList {
							t.Fatalf("%s: chain %d is %s (rich_list %v), want %s (%v)", form, i, g.ChainID, g.RichList, c.id, c.richList)
						}
						if !c.richList {
							if g.Height != nil || g.Balances != nil {
								t.Fatalf("%s on %s (no rich list): %+v", form, c.id, g)
							}
							continue
						}
						name := b32
						if vmkind.Kind(c.vm) == vmkind.EVM {
							name = address.Hex(a)
						}
						var want, gs []string
						for _, d := range denomsOf[c.id] { // rich_list_denom's order: by denom
							if amt, ok := lists[c.id][d][name]; ok && amt != "0" {
								want = append(want, d+"="+amt)
							}
						}
						for _, b := range g.Balances {
							gs = append(gs, b.Denom+"="+b.Amount)
						}
						var st struct {
							RichListHeight *int64 `json:"rich_list_height"`
						}
						fetch(srv.URL+"/"+c.id+"/status", &st)
						if g.Account != name || g.Height == nil || st.RichListHeight == nil || *g.Height != *st.RichListHeight || g.Balances == nil || !slices.Equal(gs, want) {
							t.Fatalf("%s on %s: account %s, balances %v\nwant account %s, balances %v (rich list at %v, view at %v)", form, c.id, g.Account, gs, name, want, st.RichListHeight, g.Height)
						}
						compared += len(want)
					}
				}
			}
			t.Logf("%d accounts in 2 forms: %d balances equal to the chains' own rich lists", len(accounts), compared)
			if compared < 10 {
				t.Fatalf("only %d balances compared", compared)
			}
			for _, bad := range []string{"zzz", "init1nrjs8u6apgqeev9z2xkjgwjvel8nw86x8vkeuy", "0xzz"} {
				if st, ct, b := get(t, srv.URL+"/all/indexer/richlist/v1/by_account/"+bad, ""); st != http.StatusBadRequest || !strings.HasPrefix(ct, "application/json") {
					t.Errorf("%s: %d %s %s, want a JSON 400", bad, st, ct, b)
				}
			}
		})
	}
}
