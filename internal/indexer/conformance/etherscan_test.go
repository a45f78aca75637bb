package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/indexer/profile"
	"github.com/rollgate/rollgate/internal/store"
)

// TestEtherscanGoldens: the Etherscan-compatible /api over the captured real minievm chain
// (ingested with its internal txs, the replay server as its JSON-RPC) answers every action as
// the goldens under testdata/etherscan/ hold, the same bytes from SQLite and PostgreSQL. The
// parameters are picked from the store by fixed rules, so the goldens pin real receipts,
// traces and logs; `-update` rewrites them for review.
func TestEtherscanGoldens(t *testing.T) {
	var first []byte
	for _, be := range storeBackends {
		t.Run(be.Name, func(t *testing.T) {
			c := ingestCaptured(t, "minievm", vmkind.EVM, be.DSN(t))
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			src, err := chainSource(c.url)
			if err != nil {
				t.Fatal(err)
			}
			top, _ := c.db.IndexedHeight(ctx)
			f := ingest.NewInternalFollower(ingest.InternalConfig{PollInterval: 10 * time.Millisecond,
				RetryMin: 5 * time.Millisecond, RetryMax: 50 * time.Millisecond, StopAtHeight: top}, src.EVM(), c.db, nil)
			if err := f.Run(ctx); err != nil {
				t.Fatalf("internal txs: %v", err)
			}
			// The answers' JSON-RPC goes through a relay that counts eth_getBlockByNumber:
			// the tx lists read their tx bodies from the stored explorer keys, which every
			// row of the capture carries, so only getblockreward (the block's miner) asks.
			var blockCalls atomic.Int64
			relay := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				blockCalls.Add(int64(bytes.Count(body, []byte(`"eth_getBlockByNumber"`))))
				resp, err := http.Post(c.url+r.URL.Path, "application/json", bytes.NewReader(body))
				if err != nil {
					http.Error(w, err.Error(), http.StatusBadGateway)
					return
				}
				defer resp.Body.Close()
				w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
				w.WriteHeader(resp.StatusCode)
				_, _ = io.Copy(w, resp.Body)
			}))
			defer relay.Close()
			rpc, err := evmrpc.New(relay.URL)
			if err != nil {
				t.Fatal(err)
			}
			feat := profile.For(vmkind.EVM).API(c.db, profile.Options{InternalTxs: true, EVMRPC: rpc, NativeDenom: "GAS"})
			h := api.New(api.Config{ChainID: c.id, Features: feat, AccountPrefix: "init"}, c.db, nil, nil)

			var all bytes.Buffer
			for _, gc := range etherscanCases(t, c.db, h) {
				blockCalls.Store(0)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api?"+gc.q, nil))
				if rec.Code != http.StatusOK || !json.Valid(rec.Body.Bytes()) {
					t.Fatalf("%s: %d %s", gc.q, rec.Code, rec.Body)
				}
				if n := blockCalls.Load(); n > 0 && gc.name != "getblockreward" {
					t.Errorf("%s: %d eth_getBlockByNumber calls; the tx bodies are in the store", gc.name, n)
				}
				goldenAnswer(t, &all, filepath.Join("etherscan", gc.name+".txt"), "GET /api?"+gc.q, rec.Body.Bytes())
			}
			// Only the chain calls the capture holds were made: a miss would be an answer
			// built from a made-up response.
			for _, m := range c.srv.Misses() {
				if strings.Contains(m.Body, "eth_") {
					t.Errorf("JSON-RPC call not in the capture: %s", m)
				}
			}
			if first == nil {
				first = all.Bytes()
			} else if !bytes.Equal(first, all.Bytes()) {
				t.Error("PostgreSQL answers differ from SQLite's")
			}
		})
	}
}

type esCase struct{ name, q string }

// etherscanCases picks the parameters: the first account sending an EVM tx, the first tx with
// internal txs, the first NFT collection, the address with the most logs, the first block's
// time.
func etherscanCases(t *testing.T, db *store.DB, h http.Handler) []esCase {
	t.Helper()
	ctx := context.Background()
	etx, err := db.EVMTxs(ctx, store.EVMTxFilter{}, store.Page{Limit: 1000})
	if err != nil || len(etx.Txs) == 0 {
		t.Fatalf("evm txs: %v", err)
	}
	type rcpt struct {
		Hash   string `json:"transactionHash"`
		From   string `json:"from"`
		Height string `json:"blockNumber"`
		Logs   []struct {
			Address string   `json:"address"`
			Topics  []string `json:"topics"`
		} `json:"logs"`
	}
	var rs []rcpt
	for _, r := range etx.Txs {
		var x rcpt
		if err := json.Unmarshal(r.JSON, &x); err != nil {
			t.Fatal(err)
		}
		rs = append(rs, x)
	}
	// The first sender that is an account: Cosmos messages run as EVM calls from the zero
	// address on minievm.
	sender := ""
	for _, r := range rs {
		if a := strings.ToLower(r.From); sender == "" && a != "0x"+strings.Repeat("0", 40) {
			sender = a
		}
	}
	senders := []string{sender}
	logCount := map[string]int{}
	transferer := ""
	for _, r := range rs {
		if s := strings.ToLower(r.From); !contains(senders, s) && len(senders) < 3 {
			senders = append(senders, s)
		}
		for _, l := range r.Logs {
			logCount[strings.ToLower(l.Address)]++
			if transferer == "" && len(l.Topics) == 3 && l.Topics[0] == "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef" {
				transferer = "0x" + l.Topics[2][26:]
			}
		}
	}
	busiest := ""
	for a, n := range logCount {
		if busiest == "" || n > logCount[busiest] || n == logCount[busiest] && a < busiest {
			busiest = a
		}
	}
	internal, err := db.InternalTxs(ctx, store.InternalTxFilter{}, store.Page{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	traced := ""
	for _, it := range internal.Txs {
		var f struct {
			Hash        string `json:"hash"`
			ParentIndex int    `json:"parent_index"`
		}
		_ = json.Unmarshal(it.JSON, &f)
		if f.ParentIndex >= 0 {
			traced = f.Hash
			break
		}
	}
	cols, err := db.Collections(ctx, store.CollectionFilter{}, store.Page{Limit: 1})
	if err != nil || len(cols.Collections) == 0 {
		t.Fatalf("collections: %v", err)
	}
	coll := address.Hex(cols.Collections[0].Addr)
	b, err := db.Block(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	ts := strconv.FormatInt(b.Time.Unix(), 10)
	if traced == "" || transferer == "" {
		t.Fatalf("the capture has no internal tx (%q) or no ERC-20 transfer (%q)", traced, transferer)
	}
	v := func(kv ...string) string {
		q := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			q.Set(kv[i], kv[i+1])
		}
		return q.Encode()
	}
	return []esCase{
		{"balance", v("module", "account", "action", "balance", "address", sender, "tag", "latest")},
		{"balancemulti", v("module", "account", "action", "balancemulti", "address", strings.Join(senders, ","))},
		{"txlist", v("module", "account", "action", "txlist", "address", sender)},
		{"txlist_page2_desc", v("module", "account", "action", "txlist", "address", sender, "page", "2", "offset", "2", "sort", "desc")},
		{"txlistinternal_txhash", v("module", "account", "action", "txlistinternal", "txhash", traced)},
		{"txlistinternal_address", v("module", "account", "action", "txlistinternal", "address", sender)},
		{"tokentx", v("module", "account", "action", "tokentx", "address", transferer)},
		{"tokennfttx_contract", v("module", "account", "action", "tokennfttx", "contractaddress", coll)},
		{"getstatus", v("module", "transaction", "action", "getstatus", "txhash", rs[0].Hash)},
		{"gettxreceiptstatus", v("module", "transaction", "action", "gettxreceiptstatus", "txhash", rs[0].Hash)},
		{"gettxreceiptstatus_unknown", v("module", "transaction", "action", "gettxreceiptstatus", "txhash", "0x"+strings.Repeat("ab", 32))},
		{"getblocknobytime_before", v("module", "block", "action", "getblocknobytime", "timestamp", ts, "closest", "before")},
		{"getblocknobytime_after", v("module", "block", "action", "getblocknobytime", "timestamp", ts, "closest", "after")},
		{"getblockreward", v("module", "block", "action", "getblockreward", "blockno", strconv.FormatUint(hexN(rs[0].Height), 10))},
		{"getLogs_address", v("module", "logs", "action", "getLogs", "address", busiest, "fromBlock", "1", "toBlock", "latest")},
		{"getLogs_transfer_topic", v("module", "logs", "action", "getLogs", "fromBlock", "1", "toBlock", "latest", "topic0", "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef", "offset", "5")},
		{"getabi_unverified", v("module", "contract", "action", "getabi", "address", coll)},
		{"getsourcecode_unverified", v("module", "contract", "action", "getsourcecode", "address", coll)},
	}
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

func hexN(s string) uint64 {
	n, _ := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
	return n
}
