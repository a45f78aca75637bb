package store

import (
	"context"
	"testing"
)

// TestTxCount: the count is exact after every write (against COUNT(*) over tx), unchanged by
// blocks written again, and counts only what the store holds when indexing started above
// height 1; on both backends.
func TestTxCount(t *testing.T) {
	m := buildModel(24)
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		check := func(what string, want int64) {
			t.Helper()
			db.state = stateCache{} // the write path updates it; read the row as another process would
			got, err := db.TxCount(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var scanned int64
			if err := queryRow(ctx, db.be.Reader(), "SELECT COUNT(*) FROM tx", nil, &scanned); err != nil {
				t.Fatal(err)
			}
			if got != want || got != scanned {
				t.Errorf("%s: TxCount %d, COUNT(*) %d, want %d", what, got, scanned, want)
			}
		}
		check("empty", 0)
		// Blocks 1..3 hold 1+2+3 txs; block 4 none.
		if err := db.WriteBlocks(ctx, m.bundles[:4]); err != nil {
			t.Fatal(err)
		}
		check("4 blocks", 6)
		if err := db.WriteBlocks(ctx, m.bundles[4:]); err != nil {
			t.Fatal(err)
		}
		check("all", int64(len(m.txs)))
		// Blocks written again (a restarted ingester) are not counted twice.
		if err := db.WriteBlocks(ctx, m.bundles[2:6]); err != nil {
			t.Fatal(err)
		}
		check("after a rewrite", int64(len(m.txs)))
	})
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		// Indexing started at height 9 (first_height): only the txs from there on are held.
		if err := db.WriteBlocks(ctx, m.bundles[8:12]); err != nil {
			t.Fatal(err)
		}
		var want int64
		for _, b := range m.bundles[8:12] {
			want += int64(len(b.Txs))
		}
		if got, err := db.TxCount(ctx); err != nil || got != want {
			t.Errorf("from height 9: TxCount %d, %v, want %d", got, err, want)
		}
	})
}
