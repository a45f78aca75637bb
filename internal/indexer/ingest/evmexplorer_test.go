package ingest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/store"
)

// TestExplorerFields: the stand-in of a Cosmos tx (zero from, input = its hash) and a signed
// Ethereum tx (from and nonce = the tx.acc_seq of a Cosmos tx) find their Cosmos txs; a tx
// whose pair no Cosmos tx names gets no tx_hash; a legacy tx has no EIP-1559 fees; a receipt
// the block's txs lack keeps the timestamp alone.
func TestExplorerFields(t *testing.T) {
	x := NewAccountExtractor("init")
	signer := bytes.Repeat([]byte{0xab}, 20)
	other := bytes.Repeat([]byte{0xcd}, 20)
	c0, c1, c2 := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32), bytes.Repeat([]byte{3}, 32)
	cosmos := []store.Tx{{Hash: c0, Signer: other}, {Hash: c1, Signer: signer}, {Hash: c2, Signer: signer}}
	accSeqEv := func(seq string) []Event {
		return []Event{{Type: "tx", Attributes: []EventAttribute{{Key: "acc_seq", Value: "init1whatever/" + seq}}}}
	}
	results := []TxResult{{Events: accSeqEv("0")}, {Events: accSeqEv("4")}, {Events: accSeqEv("5")}}
	e1, e2, e3, e4 := bytes.Repeat([]byte{0xe1}, 32), bytes.Repeat([]byte{0xe2}, 32), bytes.Repeat([]byte{0xe3}, 32), bytes.Repeat([]byte{0xe4}, 32)
	h := func(b []byte) string { return "0x" + hex.EncodeToString(b) }
	zero := "0x0000000000000000000000000000000000000000"
	block := `{"transactions":[` +
		`{"hash":"` + h(e1) + `","from":"` + zero + `","input":"` + h(c0) + `","nonce":"0x0","gas":"0x0","gasPrice":"0x0","value":"0x0"},` +
		`{"hash":"` + h(e2) + `","from":"` + h(signer) + `","input":"0xa9059cbb","nonce":"0x5","gas":"0x5208","gasPrice":"0x1","maxFeePerGas":"0x2","maxPriorityFeePerGas":"0x1","value":"0x10"},` +
		`{"hash":"` + h(e3) + `","from":"` + h(signer) + `","input":"0x","nonce":"0x9","gas":"0x5208","gasPrice":"0x1","value":"0x0"}]}`
	txs := []store.EVMTx{{Hash: e1}, {Hash: e2}, {Hash: e3}, {Hash: e4}}
	blk := &RawBlock{Height: 7, Time: time.Date(2026, 11, 21, 9, 1, 42, 6536662, time.UTC)}
	if err := x.explorerFields(blk, results, cosmos, json.RawMessage(block), txs); err != nil {
		t.Fatal(err)
	}
	ts := `{"timestamp":"2026-11-21T09:01:42.006536662Z"`
	want := []string{
		ts + `,"tx_hash":"` + hex.EncodeToString(c0) + `","value":"0x0","input":"` + h(c0) + `","nonce":"0x0","gas":"0x0","gasPrice":"0x0"}`,
		ts + `,"tx_hash":"` + hex.EncodeToString(c2) + `","value":"0x10","input":"0xa9059cbb","nonce":"0x5","gas":"0x5208","gasPrice":"0x1","maxFeePerGas":"0x2","maxPriorityFeePerGas":"0x1"}`,
		ts + `,"value":"0x0","input":"0x","nonce":"0x9","gas":"0x5208","gasPrice":"0x1"}`,
		ts + `}`,
	}
	for i, w := range want {
		if string(txs[i].Explorer) != w {
			t.Errorf("tx %d: %s\nwant %s", i, txs[i].Explorer, w)
		}
	}
}

// TestBlockAndReceiptsBatch: one batch request per height; a node that refuses batches is
// asked the two calls one by one; a height the node lacks is ErrFutureHeight.
func TestBlockAndReceiptsBatch(t *testing.T) {
	for _, refuse := range []bool{false, true} {
		var posts, batches int
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			posts++
			answer := func(id json.RawMessage, method string, params []json.RawMessage) string {
				if string(params[0]) == `"0x63"` {
					return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":null}`
				}
				if method == "eth_getBlockByNumber" {
					return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"transactions":[]}}`
				}
				return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":[{"transactionHash":"0x01"}]}`
			}
			type req struct {
				ID     json.RawMessage   `json:"id"`
				Method string            `json:"method"`
				Params []json.RawMessage `json:"params"`
			}
			if bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
				batches++
				if refuse {
					_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch requests are not supported"}}`)
					return
				}
				var rs []req
				_ = json.Unmarshal(body, &rs)
				out := "["
				for i, q := range rs {
					if i > 0 {
						out += ","
					}
					out += answer(q.ID, q.Method, q.Params)
				}
				_, _ = io.WriteString(w, out+"]")
				return
			}
			var q req
			_ = json.Unmarshal(body, &q)
			_, _ = io.WriteString(w, answer(q.ID, q.Method, q.Params))
		}))
		c, err := evmrpc.New(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		src := NewEVMSource(c).(evmBlockSource)
		blk, rs, err := src.BlockAndReceipts(t.Context(), 7)
		if err != nil || string(blk) != `{"transactions":[]}` || len(rs) != 1 {
			t.Fatalf("refuse=%v: %s %s %v", refuse, blk, rs, err)
		}
		if wantPosts := map[bool]int{false: 1, true: 3}[refuse]; posts != wantPosts || batches != 1 {
			t.Errorf("refuse=%v: %d requests (%d batches), want %d (1)", refuse, posts, batches, wantPosts)
		}
		if _, _, err := src.BlockAndReceipts(t.Context(), 0x63); !errors.Is(err, ErrFutureHeight) {
			t.Errorf("refuse=%v: future height: %v", refuse, err)
		}
		srv.Close()
	}
}
