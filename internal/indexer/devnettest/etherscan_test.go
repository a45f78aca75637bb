package devnettest

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/indexer/profile"
	"github.com/rollgate/rollgate/internal/testutil"
)

// etherscanClient is an Etherscan API client as tooling writes one: GET {base}/api with module,
// action and the action's parameters, the envelope decoded, status "1" or the documented
// "nothing found" messages accepted, anything else an error (the rule ethers' EtherscanProvider
// applies in its fetch). It is the Go side of scripts/etherscan-client, which drives ethers v6
// itself against `rollgate up`.
type etherscanClient struct {
	t    testing.TB
	base string
}

type esAnswer struct {
	Status  string          `json:"status"`
	Message string          `json:"message"`
	Result  json.RawMessage `json:"result"`
}

func (c etherscanClient) raw(module, action string, params ...string) esAnswer {
	c.t.Helper()
	q := url.Values{"module": {module}, "action": {action}}
	for i := 0; i+1 < len(params); i += 2 {
		q.Set(params[i], params[i+1])
	}
	status, ct, body := testutil.Get(c.t, c.base+"/api?"+q.Encode())
	if status != http.StatusOK || !strings.HasPrefix(ct, "application/json") {
		c.t.Fatalf("%s.%s: HTTP %d %s %s", module, action, status, ct, body)
	}
	var a esAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		c.t.Fatalf("%s.%s: %v: %s", module, action, err, body)
	}
	return a
}

func (c etherscanClient) get(v any, module, action string, params ...string) {
	c.t.Helper()
	a := c.raw(module, action, params...)
	if a.Status != "1" && !(a.Status == "0" && (a.Message == "No transactions found" || a.Message == "No records found")) {
		c.t.Fatalf("%s.%s %v: %s %s %s", module, action, params, a.Status, a.Message, a.Result)
	}
	if err := json.Unmarshal(a.Result, v); err != nil {
		c.t.Fatalf("%s.%s: result: %v", module, action, err)
	}
}

// chainTx is a tx as the chain's eth_getBlockByNumber(h, true) has it.
type chainTx struct {
	Hash  string `json:"hash"`
	From  string `json:"from"`
	To    string `json:"to"`
	Nonce string `json:"nonce"`
	Value string `json:"value"`
	Input string `json:"input"`
}

type chainLog struct {
	Address         string   `json:"address"`
	Topics          []string `json:"topics"`
	Data            string   `json:"data"`
	BlockNumber     string   `json:"blockNumber"`
	TransactionHash string   `json:"transactionHash"`
	LogIndex        string   `json:"logIndex"`
}

func dec(h string) string {
	n, ok := new(big.Int).SetString(strings.TrimPrefix(h, "0x"), 16)
	if !ok {
		return "0"
	}
	return n.String()
}

// TestEtherscanAgainstChain: the Etherscan API of the devnet's EVM rollup, read with an
// Etherscan-shaped client, equals the chain's own ground truth: balances from its bank store
// (through the rich list, and through JSON-RPC), each account's txs from its blocks, token
// transfers and a contract's logs from eth_getLogs, and the block of each block's time; with
// paging and sort holding together. SQLite and PostgreSQL.
func TestEtherscanAgainstChain(t *testing.T) {
	evm := rollups[0]
	if evm.vm() != vmkind.EVM {
		t.Fatal("rollups[0] is the EVM rollup")
	}
	cfg := netConfig()
	cfg.Chains = cfg.Chains[:1]
	n := startNet(t, cfg)
	if err := n.ProduceBlocks(t.Context(), produced); err != nil {
		t.Fatal(err)
	}
	dc, _ := n.Chain(evm.chainID)
	ep := n.Endpoints()[evm.chainID]
	rpc, err := evmrpc.New(ep.JSONRPC)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	// Ground truth from the chain.
	bank, err := dc.Balances(tip)
	if err != nil {
		t.Fatal(err)
	}
	var txs []chainTx
	times := map[int64]int64{}
	for h := int64(1); h <= tip; h++ {
		b, err := rpc.BlockByNumber(ctx, h, true)
		if err != nil {
			t.Fatal(err)
		}
		times[h] = int64(b.Timestamp)
		for _, raw := range b.Transactions {
			var tx chainTx
			if err := json.Unmarshal(raw, &tx); err != nil {
				t.Fatal(err)
			}
			txs = append(txs, tx)
		}
	}
	var logs []chainLog
	if err := rpc.Call(ctx, "eth_getLogs", []any{map[string]any{"fromBlock": "0x1", "toBlock": evmrpc.BlockTag(tip)}}, &logs); err != nil {
		t.Fatal(err)
	}
	const transfer = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
	var erc20 []chainLog
	for _, l := range logs {
		if len(l.Topics) == 3 && l.Topics[0] == transfer {
			erc20 = append(erc20, l)
		}
	}
	if len(txs) == 0 || len(erc20) == 0 {
		t.Fatalf("the devnet produced %d txs and %d ERC-20 transfers: nothing to compare", len(txs), len(erc20))
	}
	var accounts []string
	for _, a := range dc.Accounts() {
		accounts = append(accounts, "0x"+hex.EncodeToString(a.Addr))
	}

	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			db := openStore(t, be.dsn(t))
			ictx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			if err := ingestChain(ictx, ep, evm, db, tip); err != nil {
				t.Fatalf("ingest: %v", err)
			}
			for _, native := range []string{"GAS", ""} { // the rich list; the JSON-RPC
				o := profile.Options{InternalTxs: true, EVMRPC: rpc, NativeDenom: native}
				c := apiConfig(evm, db)
				c.Features = profile.For(vmkind.EVM).API(db, o)
				srv := httptest.NewServer(api.New(c, db, nil, prometheus.NewRegistry()))
				defer srv.Close()
				es := etherscanClient{t: t, base: srv.URL}
				for _, a := range accounts {
					var got string
					es.get(&got, "account", "balance", "address", a, "tag", "latest")
					want := bank["GAS"][strings.TrimPrefix(a, "0x")]
					if want == "" {
						want = "0"
					}
					if got != want {
						t.Errorf("native %q: balance of %s = %s, chain %s", native, a, got, want)
					}
				}
			}
			o := profile.Options{InternalTxs: true, EVMRPC: rpc, NativeDenom: "GAS"}
			c := apiConfig(evm, db)
			c.Features = profile.For(vmkind.EVM).API(db, o)
			srv := httptest.NewServer(api.New(c, db, nil, prometheus.NewRegistry()))
			defer srv.Close()
			es := etherscanClient{t: t, base: srv.URL}

			var multi []struct{ Account, Balance string }
			es.get(&multi, "account", "balancemulti", "address", strings.Join(accounts[:min(20, len(accounts))], ","))
			for _, m := range multi {
				want := bank["GAS"][strings.TrimPrefix(m.Account, "0x")]
				if want == "" {
					want = "0"
				}
				if m.Balance != want {
					t.Errorf("balancemulti %s = %s, chain %s", m.Account, m.Balance, want)
				}
			}

			checked := 0
			for _, a := range accounts {
				var want []chainTx
				for _, tx := range txs {
					if strings.EqualFold(tx.From, a) || strings.EqualFold(tx.To, a) {
						want = append(want, tx)
					}
				}
				var got []map[string]string
				es.get(&got, "account", "txlist", "address", a)
				if len(got) != len(want) {
					t.Errorf("txlist %s: %d txs, chain %d", a, len(got), len(want))
					continue
				}
				for i, w := range want {
					g := got[i]
					if g["hash"] != w.Hash || !strings.EqualFold(g["from"], w.From) || !strings.EqualFold(g["to"], w.To) ||
						g["value"] != dec(w.Value) || g["nonce"] != dec(w.Nonce) || g["input"] != w.Input {
						t.Errorf("txlist %s #%d: %v, chain %+v", a, i, g, w)
					}
				}
				if len(want) >= 3 {
					checked++
					// Pages of two put back together, and desc, are the same list.
					var p1, p2, desc []map[string]string
					es.get(&p1, "account", "txlist", "address", a, "page", "1", "offset", "2")
					es.get(&p2, "account", "txlist", "address", a, "page", "2", "offset", "2", "sort", "asc")
					es.get(&desc, "account", "txlist", "address", a, "sort", "desc")
					if len(p1) != 2 || len(p2) == 0 || p1[0]["hash"] != got[0]["hash"] || p1[1]["hash"] != got[1]["hash"] || p2[0]["hash"] != got[2]["hash"] {
						t.Errorf("txlist %s pages disagree with the whole list", a)
					}
					slices.Reverse(desc)
					for i := range desc {
						if desc[i]["hash"] != got[i]["hash"] {
							t.Errorf("txlist %s desc is not the reverse", a)
							break
						}
					}
					// A block range keeps the txs inside it.
					mid := got[len(got)/2]["blockNumber"]
					var ranged []map[string]string
					es.get(&ranged, "account", "txlist", "address", a, "startblock", mid, "endblock", mid)
					for _, r := range ranged {
						if r["blockNumber"] != mid {
							t.Errorf("txlist %s startblock=endblock=%s gave block %s", a, mid, r["blockNumber"])
						}
					}
					if len(ranged) == 0 {
						t.Errorf("txlist %s in block %s: none", a, mid)
					}
				}
			}
			if checked == 0 {
				t.Error("no account with three txs: paging not compared")
			}

			transfers := 0
			for _, a := range accounts {
				pad := "0x000000000000000000000000" + strings.TrimPrefix(a, "0x")
				var want []chainLog
				for _, l := range erc20 {
					if l.Topics[1] == pad || l.Topics[2] == pad {
						want = append(want, l)
					}
				}
				var got []map[string]string
				es.get(&got, "account", "tokentx", "address", a)
				if len(got) != len(want) {
					t.Errorf("tokentx %s: %d transfers, chain %d", a, len(got), len(want))
					continue
				}
				for i, w := range want {
					g := got[i]
					if g["hash"] != w.TransactionHash || g["contractAddress"] != strings.ToLower(w.Address) || g["value"] != dec(w.Data) ||
						g["from"] != "0x"+w.Topics[1][26:] || g["to"] != "0x"+w.Topics[2][26:] || g["blockNumber"] != dec(w.BlockNumber) {
						t.Errorf("tokentx %s #%d: %v, chain %+v", a, i, g, w)
					}
					if g["tokenSymbol"] == "" || g["tokenDecimal"] == "" {
						t.Errorf("tokentx %s #%d: no token metadata: %v", a, i, g)
					}
				}
				transfers += len(want)
			}
			if transfers == 0 {
				t.Error("no transfer compared")
			}
			t.Logf("compared %d accounts' balances and txlists (%d txs, %d paged), %d token transfers", len(accounts), len(txs), checked, transfers)

			// getLogs of the contract with the most logs, whole range and by topic0.
			count := map[string]int{}
			for _, l := range logs {
				count[strings.ToLower(l.Address)]++
			}
			var busiest string
			for a, k := range count {
				if busiest == "" || k > count[busiest] || k == count[busiest] && a < busiest {
					busiest = a
				}
			}
			for _, topic := range []string{"", transfer} {
				var want []chainLog
				for _, l := range logs {
					if strings.EqualFold(l.Address, busiest) && (topic == "" || l.Topics[0] == topic) {
						want = append(want, l)
					}
				}
				params := []string{"address", busiest, "fromBlock", "1", "toBlock", "latest"}
				if topic != "" {
					params = append(params, "topic0", topic)
				}
				var got []struct {
					Address, Data, BlockNumber, TransactionHash, LogIndex, TimeStamp string
					Topics                                                           []string
				}
				es.get(&got, "logs", "getLogs", params...)
				if len(got) != len(want) {
					t.Fatalf("getLogs %v: %d logs, chain %d", params, len(got), len(want))
				}
				for i, w := range want {
					g := got[i]
					if g.TransactionHash != w.TransactionHash || g.LogIndex != w.LogIndex || g.Data != w.Data || !slices.Equal(g.Topics, w.Topics) ||
						g.BlockNumber != w.BlockNumber || g.TimeStamp != "0x"+strconv.FormatInt(times[int64(hexN(w.BlockNumber))], 16) {
						t.Errorf("getLogs #%d: %+v, chain %+v", i, g, w)
					}
				}
			}

			// The block of each block's own time; one second before the first block is none.
			for h := int64(1); h <= tip; h += 7 {
				var before, after string
				es.get(&before, "block", "getblocknobytime", "timestamp", strconv.FormatInt(times[h], 10), "closest", "before")
				es.get(&after, "block", "getblocknobytime", "timestamp", strconv.FormatInt(times[h], 10), "closest", "after")
				wantBefore, wantAfter := int64(0), int64(0)
				for k := int64(1); k <= tip; k++ {
					if times[k] <= times[h] {
						wantBefore = k
					}
					if wantAfter == 0 && times[k] >= times[h] {
						wantAfter = k
					}
				}
				if before != strconv.FormatInt(wantBefore, 10) || after != strconv.FormatInt(wantAfter, 10) {
					t.Errorf("getblocknobytime %d (block %d): before %s after %s, chain %d %d", times[h], h, before, after, wantBefore, wantAfter)
				}
			}
			if a := es.raw("block", "getblocknobytime", "timestamp", strconv.FormatInt(times[1]-1, 10), "closest", "before"); a.Status != "0" || string(a.Result) != `"Error! No closest block found"` {
				t.Errorf("getblocknobytime before the first block: %+v", a)
			}

			// getstatus and gettxreceiptstatus agree with the chain's receipts.
			for _, tx := range txs[:min(len(txs), 10)] {
				r, err := rpc.TransactionReceipt(ctx, tx.Hash)
				if err != nil {
					t.Fatal(err)
				}
				var st struct{ Status string }
				es.get(&st, "transaction", "gettxreceiptstatus", "txhash", tx.Hash)
				if want := fmt.Sprint(uint64(r.Status)); st.Status != want {
					t.Errorf("gettxreceiptstatus %s = %s, chain %s", tx.Hash, st.Status, want)
				}
			}
		})
	}
}

func hexN(s string) uint64 {
	n, _ := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
	return n
}
