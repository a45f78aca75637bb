package storetest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/rollgate/rollgate/internal/store"
)

// TestFillRichListAndEVM: the requested holders in amount order with the shared amount's ties
// by account, topped up in two calls; the requested EVM txs, each with its internal tx and
// found by EVMTxHash.
func TestFillRichListAndEVM(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "s.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := FillRichList(ctx, db, 0, 7000); err != nil {
		t.Fatal(err)
	}
	if err := FillRichList(ctx, db, 7000, 12345); err != nil {
		t.Fatal(err)
	}
	pg, err := db.Holders(ctx, RichListDenom(), store.Page{Limit: 1000, Offset: 11000, Desc: true, CountTotal: true})
	if err != nil {
		t.Fatal(err)
	}
	if pg.Total != 12345 || len(pg.Holders) != 1000 {
		t.Fatalf("holders: total %d, page of %d", pg.Total, len(pg.Holders))
	}
	for i := 1; i < len(pg.Holders); i++ {
		a, b := pg.Holders[i-1], pg.Holders[i]
		if c := a.Amount.Cmp(b.Amount); c < 0 || c == 0 && string(a.Account) >= string(b.Account) {
			t.Fatalf("holder %d (%s) before %d (%s) out of order", i-1, a.Amount, i, b.Amount)
		}
	}

	if err := FillEVM(ctx, db, 0, 2345, EVMOptions{Internal: true}); err != nil {
		t.Fatal(err)
	}
	txs, err := db.EVMTxs(ctx, store.EVMTxFilter{}, store.Page{Limit: 1, Desc: true, CountTotal: true})
	if err != nil || txs.Total != 2345 {
		t.Fatalf("EVM txs: %d, %v", txs.Total, err)
	}
	if _, err := db.EVMTx(ctx, EVMTxHash(2345)); err != nil {
		t.Fatalf("EVM tx 2345 by hash: %v", err)
	}
	in, err := db.InternalTxs(ctx, store.InternalTxFilter{}, store.Page{Limit: 1, CountTotal: true})
	if err != nil || in.Total != 2345 {
		t.Fatalf("internal txs: %d, %v", in.Total, err)
	}
}
