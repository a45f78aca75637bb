package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/indexer/profile"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// explorerKeys are the keys an EVM tx item carries beyond rollytics' receipt
// (docs/indexer-api.md, "EVM tx items"); timestamp is always there on rows ingested with them.
var explorerKeys = []string{"timestamp", "tx_hash", "value", "input", "nonce", "gas", "gasPrice", "maxFeePerGas", "maxPriorityFeePerGas"}

// ruleEVMExplorer: rollgate's EVM tx items add the explorer keys to rollytics' receipt (a
// documented, additive difference; TestEVMExplorerFields checks their values against the
// chain). Each item must carry timestamp; the keys are then dropped, so rollytics' own
// fields are still compared one for one.
func ruleEVMExplorer(t *testing.T, got any) {
	t.Helper()
	o, _ := got.(map[string]any)
	var items []any
	if tx, ok := o["tx"]; ok {
		items = append(items, tx)
	}
	if txs, ok := o["txs"].([]any); ok {
		items = append(items, txs...)
	}
	for _, it := range items {
		m, _ := it.(map[string]any)
		if m == nil {
			continue
		}
		if _, ok := m["timestamp"].(string); !ok {
			t.Errorf("EVM tx item %v has no timestamp", m["transactionHash"])
		}
		for _, k := range explorerKeys {
			delete(m, k)
		}
	}
}

// TestEVMExplorerFields ingests the captured minievm chain and compares every EVM tx item's
// explorer keys with what the real node answered when asked per tx, as Celatone asks it:
// value, input, nonce, gas, gasPrice and the EIP-1559 fees with eth_getTransactionByHash, the
// Cosmos tx_hash with cosmos_cosmosTxHashByTxHash, timestamp with the block's time.
func TestEVMExplorerFields(t *testing.T) {
	var first []byte
	for _, be := range storeBackends {
		t.Run(be.Name, func(t *testing.T) {
			dir := testutil.Fixture(t, "minievm")
			c := ingestCaptured(t, "minievm", vmkind.EVM, be.DSN(t))
			page, err := c.db.EVMTxs(context.Background(), store.EVMTxFilter{}, store.Page{Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Txs) == 0 {
				t.Fatal("no EVM txs")
			}
			var byTx, byCosmos int
			for _, rec := range page.Txs {
				var item map[string]any
				if err := json.Unmarshal(rec.JSON, &item); err != nil {
					t.Fatal(err)
				}
				hash, _ := item["transactionHash"].(string)
				blk, err := c.db.Block(context.Background(), rec.Height)
				if err != nil {
					t.Fatal(err)
				}
				if want := blk.Time.UTC().Format("2006-01-02T15:04:05.999999999Z07:00"); item["timestamp"] != want {
					t.Errorf("%s: timestamp %v, want the block's %s", hash, item["timestamp"], want)
				}
				var tx struct {
					Result map[string]any `json:"result"`
				}
				if readIfCaptured(t, filepath.Join(dir, "evm", "eth_getTransactionByHash", hash+".json"), &tx) {
					byTx++
					for _, k := range []string{"value", "input", "nonce", "gas", "gasPrice", "maxFeePerGas", "maxPriorityFeePerGas"} {
						if item[k] != tx.Result[k] {
							t.Errorf("%s: %s %v, the node's eth_getTransactionByHash %v", hash, k, item[k], tx.Result[k])
						}
					}
				}
				var ch struct {
					Result string `json:"result"`
				}
				if readIfCaptured(t, filepath.Join(dir, "evm", "cosmos_cosmosTxHashByTxHash", hash+".json"), &ch) {
					byCosmos++
					if item["tx_hash"] != ch.Result {
						t.Errorf("%s: tx_hash %v, the node's cosmos_cosmosTxHashByTxHash %s", hash, item["tx_hash"], ch.Result)
					}
				}
				// Rollytics' keys come first, byte for byte as the receipt alone is served.
				if !strings.HasPrefix(string(rec.JSON), `{"blockHash":`) {
					t.Errorf("%s: item starts %.20q", hash, rec.JSON)
				}
			}
			t.Logf("%d EVM txs: %d compared with eth_getTransactionByHash, %d with cosmos_cosmosTxHashByTxHash", len(page.Txs), byTx, byCosmos)
			if byTx == 0 || byCosmos == 0 {
				t.Fatalf("the capture answered none of the per-tx calls (%d, %d)", byTx, byCosmos)
			}
			all := evmGoldens(t, c)
			if first == nil {
				first = all
			} else if !bytes.Equal(first, all) {
				t.Error("PostgreSQL answers differ from SQLite's")
			}
		})
	}
}

// evmGoldens answers the EVM tx routes on the captured chain and compares each answer with
// its golden (testdata/evm): a list page, a block with several EVM txs, a native value
// transfer, a tx of a Cosmos-signed MsgCall (minievm's stand-in, from the zero address), an
// account's sent txs. It returns every answer, for the backends to be compared.
func evmGoldens(t *testing.T, c capturedChain) []byte {
	t.Helper()
	h := api.New(api.Config{ChainID: c.id, Features: profile.For(vmkind.EVM).API(c.db, profile.Options{}), AccountPrefix: "init"}, c.db, nil, nil)
	var all bytes.Buffer
	for _, gc := range []struct{ name, path string }{
		{"evm_txs_limit2", "/indexer/tx/v1/evm-txs?pagination.limit=2"},
		{"evm_txs_by_height_23", "/indexer/tx/v1/evm-txs/by_height/23"},
		{"evm_tx_value_transfer", "/indexer/tx/v1/evm-txs/0x21e5f0407a8a84cf3cb4b76d16034eb2cc35b431c565325be751c9d5bc902db3"},
		{"evm_tx_cosmos_signed", "/indexer/tx/v1/evm-txs/0x8f8f200176e306cdee3c7b0cd332ca0cc499eb537706940580b0ab67875cb1ab"},
		{"evm_txs_by_account_signer", "/indexer/tx/v1/evm-txs/by_account/0x8c8d35429f74ec245f8ef2f4fd1e551cff97d650?is_signer=true&pagination.limit=2&pagination.reverse=false"},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, gc.path, nil))
		if rec.Code != http.StatusOK || !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s: %d %s", gc.path, rec.Code, rec.Body)
		}
		goldenAnswer(t, &all, filepath.Join("evm", gc.name+".txt"), "GET "+gc.path, rec.Body.Bytes())
	}
	return all.Bytes()
}

// goldenAnswer checks the request line and the indented JSON body against the golden file
// name and appends them to all, for the backends to be compared.
func goldenAnswer(t *testing.T, all *bytes.Buffer, name, request string, body []byte) {
	t.Helper()
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, body, "", "  "); err != nil {
		t.Fatal(err)
	}
	got := []byte(request + "\n" + pretty.String())
	testutil.Golden(t, name, got)
	all.Write(got)
}

func readIfCaptured(t *testing.T, path string, v any) bool {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		return false
	}
	testutil.ReadJSON(t, path, v)
	return true
}
