package conformance

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// explorerKeys are the keys an EVM tx item carries beyond the peer's receipt
// (docs/indexer-api.md, "EVM tx items"); timestamp is always there on rows ingested with them.
var explorerKeys = []string{"timestamp", "tx_hash", "value", "input", "nonce", "gas", "gasPrice", "maxFeePerGas", "maxPriorityFeePerGas"}

// ruleEVMExplorer: rollgate's EVM tx items add the explorer keys to the peer's receipt (a
// documented, additive difference; TestEVMExplorerFields checks their values against the
// chain). Each item must carry timestamp; the keys are then dropped, so the peer's own
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
	for name, dsn := range map[string]func(*testing.T) string{
		"sqlite":   func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "index.db") },
		"postgres": func(t *testing.T) string { return testutil.PostgresDSN(t) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := testutil.Fixture(t, "minievm")
			c := ingestCaptured(t, "minievm", vmkind.EVM, dsn(t))
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
				// The peer's keys come first, byte for byte as the receipt alone is served.
				if !strings.HasPrefix(string(rec.JSON), `{"blockHash":`) {
					t.Errorf("%s: item starts %.20q", hash, rec.JSON)
				}
			}
			t.Logf("%d EVM txs: %d compared with eth_getTransactionByHash, %d with cosmos_cosmosTxHashByTxHash", len(page.Txs), byTx, byCosmos)
			if byTx == 0 || byCosmos == 0 {
				t.Fatalf("the capture answered none of the per-tx calls (%d, %d)", byTx, byCosmos)
			}
		})
	}
}

func readIfCaptured(t *testing.T, path string, v any) bool {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		return false
	}
	readJSON(t, path, v)
	return true
}
