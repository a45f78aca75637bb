package devnettest

import (
	"context"
	"encoding/csv"
	"encoding/hex"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/store"
)

// TestTransfersGroundTruth: on every rollup and both backends, for each keyed test account,
// the transfers index over heights 1..tip accounts for every unit of the account's balance
// change in the chain's own bank table between those heights, per token, in and out.
func TestTransfersGroundTruth(t *testing.T) {
	n := startNet(t, netConfig())
	if err := n.ProduceBlocks(t.Context(), produced); err != nil {
		t.Fatal(err)
	}
	for _, r := range rollups {
		for _, be := range backends {
			t.Run(r.kind+"/"+be.name, func(t *testing.T) {
				db := openStore(t, be.dsn(t))
				ep := n.Endpoints()[r.chainID]
				ctx, cancel := context.WithTimeout(context.Background(), timeout)
				defer cancel()
				if err := ingestChain(ctx, ep, r, db, tip); err != nil {
					t.Fatal(err)
				}
				dc, _ := n.Chain(r.chainID)
				checkTransfers(t, db, dc, ep, r, 1, tip)
				checkCSV(t, newAPI(r, db), db, dc, ep, r)
			})
		}
	}
}

// checkCSV: each keyed account's CSV export over a time range, read by encoding/csv, sums per
// token (its delta column) to the account's bank balance change over the range's heights.
func checkCSV(t *testing.T, h http.Handler, db *store.DB, c *devnet.Chain, ep devnet.ChainEndpoints, r rollup) {
	t.Helper()
	const start, end = "2026-01-01T00:00:07Z", "2026-01-01T00:00:23.5Z"
	lo, hi, empty, err := db.HeightRange(context.Background(), mustTime(t, start), mustTime(t, end))
	if err != nil || empty {
		t.Fatalf("height range: %v %v", empty, err)
	}
	key := tokenKey(t, ep, r)
	before, err := c.Balances(lo - 1)
	if err != nil {
		t.Fatal(err)
	}
	after, err := c.Balances(hi)
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, acc := range c.Accounts() {
		rec := get(h, "/indexer/transfer/v1/transfers/by_account/"+acc.Bech32+"?format=csv&start_time="+start+"&end_time="+end)
		if rec.Code != 200 {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
		recs, err := csv.NewReader(rec.Body).ReadAll()
		if err != nil || len(recs) == 0 {
			t.Fatalf("csv: %v", err)
		}
		col := map[string]int{}
		for i, name := range recs[0] {
			col[name] = i
		}
		got := map[string]*big.Int{}
		for _, row := range recs[1:] {
			rows++
			if row[col["token_id"]] != "" || row[col["kind"]] == store.TransferCW20 {
				continue
			}
			var contract []byte
			if cs := row[col["contract"]]; strings.HasPrefix(cs, "0x") {
				contract, _ = hex.DecodeString(cs[2:])
			}
			d, ok := new(big.Int).SetString(row[col["delta"]], 10)
			if !ok {
				t.Fatalf("delta %q", row[col["delta"]])
			}
			k := key(row[col["denom"]], contract)
			if got[k] == nil {
				got[k] = new(big.Int)
			}
			got[k].Add(got[k], d)
		}
		want := balanceChange(acc.Addr, before, after, key)
		for k := range union(want, got) {
			g, w := orZero(got[k]), orZero(want[k])
			if g.Cmp(w) != 0 {
				t.Errorf("%s %s over %d..%d: CSV deltas sum to %s, the balance changed by %s", acc.Bech32, k, lo, hi, g, w)
			}
		}
	}
	t.Logf("CSV over heights %d..%d (%s..%s): %d rows, sums equal every account's balance change", lo, hi, start, end, rows)
}

// checkTransfers compares, for each keyed account of c, the sum of its transfers in (from, to]
// heights with the change of its bank balances between the two heights. Tokens are keyed as
// the chain's bank names them, lowercased; on EVM by their ERC-20 contract, which every bank
// denom has; on Move by their metadata object, which every coin has.
func checkTransfers(t *testing.T, rd store.TransferReader, c *devnet.Chain, ep devnet.ChainEndpoints, r rollup, from, to int64) {
	t.Helper()
	ctx := context.Background()
	before, err := c.Balances(from)
	if err != nil {
		t.Fatal(err)
	}
	after, err := c.Balances(to)
	if err != nil {
		t.Fatal(err)
	}
	key := tokenKey(t, ep, r)
	rows, moved, accounts := 0, 0, 0
	for _, acc := range c.Accounts() {
		a := hex.EncodeToString(acc.Addr)
		want := map[string]*big.Int{}
		add := func(m map[string]*big.Int, k string, v *big.Int) {
			if m[k] == nil {
				m[k] = new(big.Int)
			}
			m[k].Add(m[k], v)
		}
		for denom, holders := range after {
			if v, ok := new(big.Int).SetString(holders[a], 10); ok {
				add(want, key(denom, nil), v)
			}
		}
		for denom, holders := range before {
			if v, ok := new(big.Int).SetString(holders[a], 10); ok {
				add(want, key(denom, nil), new(big.Int).Neg(v))
			}
		}
		got := map[string]*big.Int{}
		p := store.Page{Limit: 1000}
		for {
			page, err := rd.Transfers(ctx, store.TransferFilter{Account: acc.Addr, MinHeight: from + 1, MaxHeight: to}, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, tr := range page.Transfers {
				rows++
				if tr.TokenID != "" || tr.Kind == store.TransferCW20 {
					continue // NFTs and CW20 balances are no bank balance
				}
				v, ok := new(big.Int).SetString(tr.Amount, 10)
				if !ok {
					t.Fatalf("amount %q", tr.Amount)
				}
				k := key(tr.Denom, tr.Contract)
				if string(tr.To) == string(acc.Addr) {
					add(got, k, v)
				}
				if string(tr.From) == string(acc.Addr) {
					add(got, k, new(big.Int).Neg(v))
				}
			}
			if len(page.Transfers) < p.Limit {
				break
			}
			p.After = store.Cursor{Kind: store.CursorSequence, Value: page.Transfers[len(page.Transfers)-1].ID}
		}
		for k, w := range want {
			g := got[k]
			if g == nil {
				g = new(big.Int)
			}
			if g.Cmp(w) != 0 {
				t.Errorf("%s %s: transfers sum to %s, the bank balance changed by %s", acc.Bech32, k, g, w)
			}
			if w.Sign() != 0 {
				moved++
			}
		}
		for k, g := range got {
			if _, ok := want[k]; !ok && g.Sign() != 0 {
				t.Errorf("%s %s: transfers sum to %s, the bank balance did not change", acc.Bech32, k, g)
			}
		}
		accounts++
	}
	if moved == 0 {
		t.Fatal("no test account's balance moved: the check is empty")
	}
	t.Logf("%d accounts, %d (account, token) balance changes accounted for by %d transfer rows", accounts, moved, rows)
}

// TestTransfersGroundTruthBridged is the ground truth on rollups bridged to the L1 with
// fungible bridge traffic: IBC transfers both ways and OPinit deposits and withdrawals move the
// test accounts' balances too, and the index names those legs (with their counterparty).
func TestTransfersGroundTruthBridged(t *testing.T) {
	cfg := netConfig()
	cfg.Chains = append([]devnet.ChainSpec{{ChainID: l1ChainID, Kind: devnet.KindL1}}, cfg.Chains...)
	cfg.Bridges, cfg.BridgeTraffic = true, 0.9
	n := startNet(t, cfg)
	if err := n.ProduceBlocks(t.Context(), produced); err != nil {
		t.Fatal(err)
	}
	for _, r := range rollups {
		t.Run(r.kind, func(t *testing.T) {
			db := openStore(t, backends[0].dsn(t))
			ep := n.Endpoints()[r.chainID]
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			if err := ingestChain(ctx, ep, r, db, tip); err != nil {
				t.Fatal(err)
			}
			dc, _ := n.Chain(r.chainID)
			checkTransfers(t, db, dc, ep, r, 1, tip)
			kinds := map[string]int{}
			p := store.Page{Limit: 1000}
			for {
				page, err := db.Transfers(ctx, store.TransferFilter{}, p)
				if err != nil {
					t.Fatal(err)
				}
				for _, tr := range page.Transfers {
					kinds[tr.Kind]++
					if (tr.Kind == store.TransferIBCReceive || tr.Kind == store.TransferDeposit) && (tr.Counterparty == "" || tr.CounterpartyAddr == "") {
						t.Errorf("%s at %d without its counterparty: %+v", tr.Kind, tr.Height, tr)
					}
				}
				if len(page.Transfers) < p.Limit {
					break
				}
				p.After = store.Cursor{Kind: store.CursorSequence, Value: page.Transfers[len(page.Transfers)-1].ID}
			}
			for _, k := range []string{store.TransferIBCReceive, store.TransferDeposit} {
				if kinds[k] == 0 {
					t.Errorf("no %s transfer in %d blocks: %v", k, produced, kinds)
				}
			}
			t.Logf("transfer kinds: %v", kinds)
		})
	}
}

// transferCases are the golden requests of the transfer lists and the time ranges on every
// rollup: the first keyed account's transfers (both directions, in, a time range, paged), the
// fee token's transfers, one tx's, and the account's txs over a time range. The devnet's
// blocks are 500 ms apart from its genesis time, so a ten-second range holds twenty blocks.
func transferCases(t testing.TB, kind string, h http.Handler, c *devnet.Chain) []gcase {
	const tr = "/indexer/transfer/v1/transfers"
	acc := c.Accounts()[0].Bech32
	fee := "umin"
	if vmkind.Kind(kind) == vmkind.EVM {
		fee = "GAS"
	}
	var first struct {
		Transfers []struct {
			TxHash string `json:"tx_hash"`
		} `json:"transfers"`
	}
	getJSON(t, h, tr+"/by_account/"+acc+"?pagination.limit=1&pagination.reverse=false", &first)
	if len(first.Transfers) == 0 {
		t.Fatalf("%s: %s has no transfer", kind, acc)
	}
	const window = "start_time=2026-01-01T00:00:10Z&end_time=2026-01-01T00:00:20Z"
	cs := []gcase{
		{"transfers_by_account", tr + "/by_account/" + acc + "?pagination.limit=5", ""},
		{"transfers_by_account_page2", tr + "/by_account/" + acc + "?pagination.limit=5", "transfers_by_account"},
		{"transfers_by_account_in_asc", tr + "/by_account/" + acc + "?direction=in&pagination.reverse=false&pagination.limit=3", ""},
		{"transfers_by_account_out_fee", tr + "/by_account/" + acc + "?direction=out&denom=" + fee + "&pagination.limit=3", ""},
		{"transfers_by_account_time_range", tr + "/by_account/" + acc + "?" + window + "&pagination.limit=4", ""},
		{"transfers_by_denom_fee", tr + "/by_denom/" + fee + "?pagination.limit=3", ""},
		{"transfers_by_tx_first", tr + "/by_tx/" + first.Transfers[0].TxHash, ""},
		{"txs_by_account_time_range", "/indexer/tx/v1/txs/by_account/" + acc + "?" + window + "&pagination.limit=2", ""},
	}
	if vmkind.Kind(kind) == vmkind.EVM {
		cs = append(cs,
			gcase{"evm_txs_time_range", "/indexer/tx/v1/evm-txs?" + window + "&pagination.limit=2", ""},
			gcase{"evm_txs_by_account_time_range", "/indexer/tx/v1/evm-txs/by_account/" + acc + "?" + window + "&pagination.limit=2", ""},
		)
	}
	return cs
}

// tokenKey names a token as the checks compare it: on EVM by its ERC-20 contract (every bank
// denom has one, read over REST), on Move by its metadata object (every coin has one), else
// by its denom, lowercased.
func tokenKey(t *testing.T, ep devnet.ChainEndpoints, r rollup) func(denom string, contract []byte) string {
	ctx := context.Background()
	rest, err := cosmosrest.New(ep.REST)
	if err != nil {
		t.Fatal(err)
	}
	contracts := map[string]string{}
	key := func(denom string, contract []byte) string {
		if r.vm() == vmkind.Move {
			// A coin's movements carry its metadata object, through x/bank or not.
			if contract == nil {
				contract = address.MoveCoinMetadata(denom)
			}
			return "0x" + hex.EncodeToString(contract)
		}
		if r.vm() != vmkind.EVM {
			return strings.ToLower(denom)
		}
		if contract != nil {
			return "0x" + hex.EncodeToString(contract)
		}
		if k, ok := contracts[denom]; ok {
			return k
		}
		k, err := rest.ContractByDenom(ctx, denom)
		if err != nil {
			t.Fatalf("contract of %s: %v", denom, err)
		}
		contracts[denom] = strings.ToLower(k)
		return contracts[denom]
	}
	return key
}

// balanceChange is acc's balance change per token between two bank tables.
func balanceChange(acc []byte, before, after map[string]map[string]string, key func(string, []byte) string) map[string]*big.Int {
	a := hex.EncodeToString(acc)
	out := map[string]*big.Int{}
	for sign, table := range map[int64]map[string]map[string]string{1: after, -1: before} {
		for denom, holders := range table {
			if v, ok := new(big.Int).SetString(holders[a], 10); ok {
				k := key(denom, nil)
				if out[k] == nil {
					out[k] = new(big.Int)
				}
				out[k].Add(out[k], v.Mul(v, big.NewInt(sign)))
			}
		}
	}
	return out
}

func union(a, b map[string]*big.Int) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func orZero(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}

func mustTime(t *testing.T, s string) time.Time {
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}
