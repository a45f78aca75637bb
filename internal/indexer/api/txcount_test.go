package api

import (
	"encoding/json"
	"strconv"
	"testing"
)

// TestTxCountIsTheListTotal: /txs/count answers the same number as the tx list's exact total
// and the number of txs a walk of the list finds, on both backends.
func TestTxCountIsTheListTotal(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			h := newEVM(testCfg, open(t), nil, nil)
			rec := do(h, "/indexer/tx/v1/txs/count")
			var c struct {
				Count string `json:"count"`
			}
			if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &c) != nil {
				t.Fatalf("count: %d %s", rec.Code, rec.Body)
			}
			rec = do(h, "/indexer/tx/v1/txs?pagination.limit=1000")
			var list struct {
				Txs        []json.RawMessage `json:"txs"`
				Pagination struct {
					Total string `json:"total"`
				} `json:"pagination"`
			}
			if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &list) != nil {
				t.Fatalf("txs: %d %s", rec.Code, rec.Body)
			}
			if n, err := strconv.Atoi(c.Count); err != nil || n != len(list.Txs) || c.Count != list.Pagination.Total || n == 0 {
				t.Errorf("count %q, list total %q, %d txs listed", c.Count, list.Pagination.Total, len(list.Txs))
			}
		})
	}
}
