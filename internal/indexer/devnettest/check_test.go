package devnettest

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/store"
)

// checkAgainstChain compares what the store holds with the chain itself: every height
// 1..tip exactly once with the chain's block hash and tx count, and every tx exactly once, in
// block order, with the chain's hash, under dense sequences.
func checkAgainstChain(t testing.TB, rd store.Reader, c *devnet.Chain, tip int64) {
	t.Helper()
	ctx := context.Background()
	if h, err := rd.IndexedHeight(ctx); err != nil || h != tip {
		t.Fatalf("indexed height %d (%v), want %d", h, err, tip)
	}
	bp, err := rd.Blocks(ctx, store.Page{Limit: 1000, Desc: true, CountTotal: true})
	if err != nil {
		t.Fatal(err)
	}
	if bp.Total != tip || int64(len(bp.Blocks)) != tip {
		t.Fatalf("%d blocks listed, total %d, want %d", len(bp.Blocks), bp.Total, tip)
	}
	var want [][]byte // tx hashes in chain order
	for i, b := range bp.Blocks {
		h := tip - int64(i) // the list is newest first
		cb, err := c.Block(h)
		if err != nil {
			t.Fatal(err)
		}
		if b.Height != h || !bytes.Equal(b.Hash, cb.Hash) || b.TxCount != len(cb.TxHashes) {
			t.Errorf("block #%d: height %d hash %X txs %d, chain: height %d hash %X txs %d", i, b.Height, b.Hash, b.TxCount, h, cb.Hash, len(cb.TxHashes))
		}
	}
	for h := int64(1); h <= tip; h++ {
		cb, _ := c.Block(h)
		want = append(want, cb.TxHashes...)
	}
	tp, err := rd.Txs(ctx, store.TxFilter{}, store.Page{Limit: 1000, Desc: true, CountTotal: true})
	if err != nil {
		t.Fatal(err)
	}
	if tp.Total != int64(len(want)) || len(tp.Txs) != len(want) {
		t.Fatalf("%d txs listed, total %d; the chain has %d", len(tp.Txs), tp.Total, len(want))
	}
	for i, r := range tp.Txs {
		seq := int64(len(tp.Txs) - i)
		var tx struct {
			TxHash string `json:"txhash"`
		}
		if err := json.Unmarshal(r.JSON, &tx); err != nil {
			t.Fatal(err)
		}
		got, _ := hex.DecodeString(tx.TxHash)
		if r.Sequence != seq || !bytes.Equal(got, want[seq-1]) {
			t.Errorf("tx #%d: sequence %d hash %s, want sequence %d hash %X", i, r.Sequence, tx.TxHash, seq, want[seq-1])
		}
	}
}
