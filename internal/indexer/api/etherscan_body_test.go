package api

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/store"
)

// esBodyChain is a small EVM chain for the tx-body tests: blocks 1..blocks with perBlock txs
// each, all sent by esSender to esRecipient, every third as an ERC-20 transfer of esToken. body is the
// node's full tx object of each tx; the store's explorer keys are copied from it, as ingestion
// copies them from eth_getBlockByNumber.
type esBodyChain struct {
	blocks, perBlock int
	// timeOnly are heights whose explorer keys hold the time alone, as ingestion stores them
	// for a tx its block fetch did not hold.
	timeOnly map[int64]bool
	bodies   map[int64][]json.RawMessage // height → the node's tx objects
}

var (
	esSender    = bytes.Repeat([]byte{0x11}, 20)
	esRecipient = bytes.Repeat([]byte{0x22}, 20)
	esToken     = bytes.Repeat([]byte{0x33}, 20)
)

func esHex(b []byte) string { return "0x" + hex.EncodeToString(b) }

// esWord is a 32-byte ABI word of an address.
func esWord(a []byte) string { return "0x" + strings.Repeat("0", 24) + hex.EncodeToString(a) }

// write stores the chain into db; explorer(h) says whether the txs of height h carry the
// explorer keys (false: a row written before migration 0014).
func (c *esBodyChain) write(t testing.TB, db store.Store, explorer func(h int64) bool) {
	t.Helper()
	c.bodies = map[int64][]json.RawMessage{}
	var bundles []store.BlockBundle
	n := 0
	for h := int64(1); h <= int64(c.blocks); h++ {
		tm := time.Unix(1_700_000_000+h*2, 500_000_000).UTC()
		blockHash := fmt.Sprintf("0x%064x", h)
		var rows store.EVMRows
		for i := 0; i < c.perBlock; i++ {
			n++
			hash := make([]byte, 32)
			hash[0], hash[31] = byte(h), byte(i)
			hash[30] = byte(n >> 8)
			to, input, logs := esRecipient, "0x", "[]"
			if n%3 == 0 {
				to = esToken
				input = "0xa9059cbb" + strings.TrimPrefix(esWord(esRecipient), "0x") + fmt.Sprintf("%064x", n*1000)
				logs = fmt.Sprintf(`[{"address":%q,"topics":[%q,%q,%q],"data":"0x%064x","blockNumber":"0x%x","transactionHash":%q,"transactionIndex":"0x%x","blockHash":%q,"logIndex":"0x0"}]`,
					esHex(esToken), transferTopic, esWord(esSender), esWord(esRecipient), n*1000, h, esHex(hash), i, blockHash)
			}
			status := "0x1"
			if n%7 == 0 {
				status = "0x0"
			}
			receipt := fmt.Sprintf(`{"blockHash":%q,"blockNumber":"0x%x","contractAddress":null,"cumulativeGasUsed":"0x%x","effectiveGasPrice":"0x3b9aca00","from":%q,"gasUsed":"0x%x","logs":%s,"logsBloom":"0x00","status":%q,"to":%q,"transactionHash":%q,"transactionIndex":"0x%x","type":"0x2"}`,
				blockHash, h, 21000*(i+1), esHex(esSender), 21000+n, logs, status, esHex(to), esHex(hash), i)
			body := fmt.Sprintf(`{"blockHash":%q,"blockNumber":"0x%x","from":%q,"gas":"0x%x","gasPrice":"0x3b9aca00","maxFeePerGas":"0x77359400","maxPriorityFeePerGas":"0x0","hash":%q,"input":%q,"nonce":"0x%x","to":%q,"transactionIndex":"0x%x","value":"0x%x","type":"0x2","chainId":"0x1"}`,
				blockHash, h, esHex(esSender), 30000+n, esHex(hash), input, n-1, esHex(to), i, uint64(n)*1_000_000_000_000_000)
			c.bodies[h] = append(c.bodies[h], json.RawMessage(body))
			row := store.EVMTx{Hash: hash, Index: i, Signer: esSender, JSON: json.RawMessage(receipt),
				Accounts: []store.TxAccount{{Addr: esSender, Signer: true}, {Addr: to}}}
			if bytes.Equal(to, esToken) {
				row.Accounts = append(row.Accounts, store.TxAccount{Addr: esRecipient})
			}
			switch {
			case explorer(h) && c.timeOnly[h]:
				row.Explorer = json.RawMessage(fmt.Sprintf(`{"timestamp":%q}`, tm.Format(time.RFC3339Nano)))
			case explorer(h):
				var b struct{ Value, Input, Nonce, Gas, GasPrice, MaxFeePerGas, MaxPriorityFeePerGas string }
				if err := json.Unmarshal([]byte(body), &b); err != nil {
					t.Fatal(err)
				}
				row.Explorer = json.RawMessage(fmt.Sprintf(`{"timestamp":%q,"tx_hash":"%064x","value":%q,"input":%q,"nonce":%q,"gas":%q,"gasPrice":%q,"maxFeePerGas":%q,"maxPriorityFeePerGas":%q}`,
					tm.Format(time.RFC3339Nano), n, b.Value, b.Input, b.Nonce, b.Gas, b.GasPrice, b.MaxFeePerGas, b.MaxPriorityFeePerGas))
			}
			rows = append(rows, row)
		}
		bundles = append(bundles, store.BlockBundle{Block: store.Block{ChainID: "local-evm-1", Height: h, Hash: []byte(blockHash),
			Time: tm, TotalFee: json.RawMessage("[]")}, Extensions: []store.ExtensionRows{rows}})
	}
	if err := db.WriteBlocks(context.Background(), bundles); err != nil {
		t.Fatal(err)
	}
}

// esNode is a local Ethereum JSON-RPC serving the chain's eth_getBlockByNumber (full txs) and
// eth_call (token metadata), counting what it is asked.
type esNode struct {
	c     *esBodyChain
	srv   *httptest.Server
	mu    sync.Mutex
	calls map[string]int // method → calls
	asked []int64        // heights of eth_getBlockByNumber, in order
}

func newESNode(t testing.TB, c *esBodyChain) *esNode {
	n := &esNode{c: c, calls: map[string]int{}}
	n.srv = httptest.NewServer(http.HandlerFunc(n.serve))
	t.Cleanup(n.srv.Close)
	return n
}

type esRPCReq struct {
	ID     json.RawMessage   `json:"id"`
	Method string            `json:"method"`
	Params []json.RawMessage `json:"params"`
}

func (n *esNode) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var reqs []esRPCReq
	batch := len(bytes.TrimSpace(body)) > 0 && bytes.TrimSpace(body)[0] == '['
	if batch {
		_ = json.Unmarshal(body, &reqs)
	} else {
		var q esRPCReq
		_ = json.Unmarshal(body, &q)
		reqs = []esRPCReq{q}
	}
	out := make([]string, len(reqs))
	n.mu.Lock()
	for i, q := range reqs {
		n.calls[q.Method]++
		result := "null"
		switch q.Method {
		case "eth_getBlockByNumber":
			var tag string
			_ = json.Unmarshal(q.Params[0], &tag)
			h, _ := strconv.ParseInt(strings.TrimPrefix(tag, "0x"), 16, 64)
			n.asked = append(n.asked, h)
			if txs, ok := n.c.bodies[h]; ok {
				tx, _ := json.Marshal(txs)
				result = fmt.Sprintf(`{"number":"0x%x","miner":"0x0000000000000000000000000000000000000000","transactions":%s}`, h, tx)
			}
		case "eth_call":
			result = `"0x"` // no name(), symbol(), decimals(): answered empty
		}
		out[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, q.ID, result)
	}
	n.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if batch {
		_, _ = io.WriteString(w, "["+strings.Join(out, ",")+"]")
	} else {
		_, _ = io.WriteString(w, out[0])
	}
}

func (n *esNode) blockCalls() (int, []int64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.calls["eth_getBlockByNumber"], slices.Clone(n.asked)
}

// esBodyServer stores the chain in a fresh SQLite file and serves its API with the node as
// its JSON-RPC.
func esBodyServer(t testing.TB, c *esBodyChain, explorer func(h int64) bool) (http.Handler, *esNode) {
	t.Helper()
	db, err := store.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "evm.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c.write(t, db, explorer)
	node := newESNode(t, c)
	rpc, err := evmrpc.New(node.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testCfg
	cfg.Features = evmFeatures(db)
	cfg.Features.Etherscan.RPC = rpc
	return New(cfg, db, nil, nil), node
}

var esBodyQueries = []string{
	"module=account&action=txlist&address=" + esHex(esSender),
	"module=account&action=txlist&address=" + esHex(esSender) + "&page=2&offset=5&sort=desc",
	"module=account&action=txlist&address=" + esHex(esRecipient) + "&startblock=2&endblock=4",
	"module=account&action=tokentx&address=" + esHex(esRecipient),
	"module=account&action=tokentx&contractaddress=" + esHex(esToken) + "&page=1&offset=3&sort=desc",
}

// TestEtherscanBodiesFromStore: when every row of a page carries the explorer keys, txlist
// and tokentx answer without a single eth_getBlockByNumber, and their bytes are those the
// node's tx objects give for the same chain stored without the keys (rows written before
// migration 0014), which the node answers. A page mixing both, and rows whose keys hold the
// time alone, asks the node for the heights of the bodiless rows only.
func TestEtherscanBodiesFromStore(t *testing.T) {
	chain := &esBodyChain{blocks: 6, perBlock: 4}
	stored, storedNode := esBodyServer(t, chain, func(int64) bool { return true })
	old, oldNode := esBodyServer(t, &esBodyChain{blocks: 6, perBlock: 4}, func(int64) bool { return false })
	mixed, mixedNode := esBodyServer(t, &esBodyChain{blocks: 6, perBlock: 4, timeOnly: map[int64]bool{5: true}}, func(h int64) bool { return h != 3 })
	for _, q := range esBodyQueries {
		want := do(old, "/api?"+q)
		if want.Code != http.StatusOK || !strings.HasPrefix(want.Body.String(), `{"status":"1"`) {
			t.Fatalf("%s via the node: %d %s", q, want.Code, want.Body)
		}
		for name, h := range map[string]http.Handler{"stored": stored, "mixed": mixed} {
			if got := do(h, "/api?"+q); got.Code != http.StatusOK || got.Body.String() != want.Body.String() {
				t.Errorf("%s from the %s store:\n%s\nwant (the node's):\n%s", q, name, got.Body, want.Body)
			}
		}
	}
	if n, hs := storedNode.blockCalls(); n != 0 {
		t.Errorf("pages whose rows carry the explorer keys asked the node for %d blocks (%v)", n, hs)
	}
	if n, _ := oldNode.blockCalls(); n == 0 {
		t.Error("rows without the explorer keys did not ask the node")
	}
	n, hs := mixedNode.blockCalls()
	if n == 0 {
		t.Error("a page with old rows did not ask the node")
	}
	if slices.ContainsFunc(hs, func(h int64) bool { return h != 3 && h != 5 }) {
		t.Errorf("mixed pages asked the node for blocks whose rows carry the body: asked %v, bodiless rows at 3 and 5", hs)
	}
	// The stored path needs no JSON-RPC at all: without one, the page still answers.
	db, err := store.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "norpc.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	chain.write(t, db, func(int64) bool { return true })
	q := esBodyQueries[0]
	if got, want := do(newEVM(testCfg, db, nil, nil), "/api?"+q), do(old, "/api?"+q); got.Body.String() != want.Body.String() {
		t.Errorf("txlist without a JSON-RPC endpoint: %s", got.Body)
	}
}

// BenchmarkEtherscanTxList: one txlist page of 24 txs over 6 blocks, the node a local
// JSON-RPC server; "stored" rows carry the explorer keys, "node" rows were written before
// migration 0014 and take their bodies from eth_getBlockByNumber.
func BenchmarkEtherscanTxList(b *testing.B) {
	for _, c := range []struct {
		name     string
		explorer bool
	}{{"stored", true}, {"node", false}} {
		b.Run(c.name, func(b *testing.B) {
			h, _ := esBodyServer(b, &esBodyChain{blocks: 6, perBlock: 4}, func(int64) bool { return c.explorer })
			path := "/api?" + esBodyQueries[0]
			if rec := do(h, path); !strings.HasPrefix(rec.Body.String(), `{"status":"1"`) {
				b.Fatalf("%d %s", rec.Code, rec.Body)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				do(h, path)
			}
		})
	}
}
