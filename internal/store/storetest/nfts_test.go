package storetest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/rollgate/rollgate/internal/store"
)

// TestFillNFTs: the requested token and collection counts, one collection holding its share,
// every collection's nft_count equal to its tokens, after an existing chain.
func TestFillNFTs(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "s.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := Fill(ctx, db, 50, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := FillNFTs(ctx, db, NFTOptions{Tokens: 1200, Collections: 7, Accounts: 13}); err != nil {
		t.Fatal(err)
	}
	all, err := db.Tokens(ctx, store.TokenFilter{}, store.Page{Limit: 1, CountTotal: true}, nil)
	if err != nil || all.Total != 1200 {
		t.Fatalf("tokens: %d, %v", all.Total, err)
	}
	cs, err := db.Collections(ctx, store.CollectionFilter{}, store.Page{Limit: 100, CountTotal: true})
	if err != nil || cs.Total != 7 {
		t.Fatalf("collections: %d, %v", cs.Total, err)
	}
	var sum int64
	for _, c := range cs.Collections {
		pg, err := db.Tokens(ctx, store.TokenFilter{Collection: c.Addr}, store.Page{Limit: 1000}, nil)
		if err != nil {
			t.Fatal(err)
		}
		n := int64(len(pg.Tokens))
		if c.NFTCount < 1000 && n != c.NFTCount {
			t.Errorf("%s: nft_count %d, %d tokens", c.Name, c.NFTCount, n)
		}
		sum += c.NFTCount
	}
	if big, err := db.Collection(ctx, NFTCollection(0)); err != nil || big.NFTCount != 1140 {
		t.Errorf("collection 0 holds %d (%v), want 95 %% = 1140", big.NFTCount, err)
	}
	if sum != 1200 {
		t.Errorf("nft_count sum %d", sum)
	}
}
