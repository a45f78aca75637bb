package store

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// Every test of the package writes with buckets of 2 tokens (split past 4), so the NFT tests'
// short lists are cut into many buckets and their offset pages go through the rank seek.
func init() { rankBucketSize = 2 }

// TestNFTRankBuckets checks the rank buckets against the brute-force model after mints,
// transfers, URI changes and burns spread over three transactions: each bucket counts exactly
// the live tokens from its first key to the next bucket's, and every offset page of every
// collection and owner, both orders, both directions, equals the model's.
func TestNFTRankBuckets(t *testing.T) {
	m, nm := buildNFTModel(120)
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		for i, part := range [][2]int{{0, 30}, {30, 31}, {31, len(m.bundles)}} {
			if err := db.WriteBlocks(ctx, m.bundles[part[0]:part[1]]); err != nil {
				t.Fatal(err)
			}
			if i == 1 {
				// As a store indexed before migration 0005 is left: one bucket per list,
				// which the following writes must split.
				resetRanks(t, db)
			}
		}
		for _, l := range rankLists {
			checkRankList(t, db, nm, l)
		}
		checkOwnerCollections(t, db, nm)
		scopes := map[string]TokenFilter{}
		for _, tk := range nm.tokens {
			scopes["c"+string(tk.Collection)] = TokenFilter{Collection: tk.Collection}
			scopes["o"+string(tk.Owner)] = TokenFilter{Owner: tk.Owner}
		}
		for _, f := range scopes {
			for _, byHeight := range []bool{false, true} {
				f.OrderByHeight = byHeight
				for _, desc := range []bool{false, true} {
					_, total := nm.page(f, Page{})
					for off := int64(0); off <= total+1; off++ {
						p := Page{Limit: 5, Desc: desc, Offset: off}
						want, _ := nm.page(f, p)
						got, err := db.Tokens(ctx, f, p, nil)
						if err != nil {
							t.Fatal(err)
						}
						var ids []string
						for _, tk := range got.Tokens {
							ids = append(ids, tk.TokenID+"@"+fmt.Sprint(tk.Collection[0]))
						}
						if !slices.Equal(ids, want) {
							t.Fatalf("filter %+v desc=%v offset %d: got %v, want %v", f, desc, off, ids, want)
						}
					}
				}
			}
		}
	})
}

// checkRankList compares one kind of list's bucket rows with the model's live tokens.
func checkRankList(t *testing.T, db *DB, nm nftModel, l nftRankList) {
	t.Helper()
	ctx := context.Background()
	byHeight := l.cols[0] == "height"
	keyOf := func(tk *Token) []any {
		if byHeight {
			return []any{tk.Height, tk.TokenID, tk.Collection}
		}
		return []any{tk.TokenID, tk.Height, tk.Collection}
	}
	less := func(a, b []any) int {
		r := 0
		for i := range 3 {
			switch x := a[i].(type) {
			case int64:
				r = cmp.Compare(x, b[i].(int64))
			case string:
				r = cmp.Compare(x, b[i].(string))
			case []byte:
				r = bytes.Compare(x, b[i].([]byte))
			}
			if r != 0 {
				return r
			}
		}
		return 0
	}
	lists := map[string][][]any{}
	for _, tk := range nm.tokens {
		s := string(tk.Collection)
		if l.kind == 1 {
			s = string(tk.Owner)
		}
		lists[s] = append(lists[s], keyOf(tk))
	}
	r, err := db.be.Reader().Query(ctx, "SELECT scope, "+l.cols[0]+", "+l.cols[1]+", "+l.cols[2]+", n FROM "+l.table+
		" WHERE kind = ? ORDER BY scope, "+l.cols[0]+", "+l.cols[1]+", "+l.cols[2], l.kind)
	if err != nil {
		t.Fatal(err)
	}
	type bucket struct {
		lo []any
		n  int64
	}
	got := map[string][]bucket{}
	for r.Next() {
		var scope []byte
		lo, n := l.scanKey(), int64(0)
		if err := r.Scan(append(append([]any{&scope}, lo...), &n)...); err != nil {
			t.Fatal(err)
		}
		got[string(scope)] = append(got[string(scope)], bucket{derefKey(lo), n})
	}
	r.Close()
	for scope, keys := range lists {
		bs := got[scope]
		if len(bs) == 0 || !sameKey(bs[0].lo, l.first()) {
			t.Fatalf("%s kind %d scope %x: first bucket %v, want the list's first key", l.table, l.kind, scope, bs)
		}
		for i, b := range bs {
			var n int64
			for _, k := range keys {
				if less(k, b.lo) >= 0 && (i+1 == len(bs) || less(k, bs[i+1].lo) < 0) {
					n++
				}
			}
			if b.n != n || b.n > 2*rankBucketSize || (i > 0 && b.n == 0) {
				t.Fatalf("%s kind %d scope %x bucket %d from %v: n = %d, model %d (bucket size %d)", l.table, l.kind, scope, i, b.lo, b.n, n, rankBucketSize)
			}
		}
	}
	for scope, bs := range got {
		if lists[scope] == nil && (len(bs) != 1 || bs[0].n != 0) {
			t.Fatalf("%s kind %d scope %x holds no token, buckets %v", l.table, l.kind, scope, bs)
		}
	}
}

// resetRanks replaces the bucket rows and the owner-collection counts by what migrations 0005
// and 0007 fill an existing store with.
func resetRanks(t *testing.T, db *DB) {
	t.Helper()
	ctx := context.Background()
	ms, err := schema.Load(db.be.Dialect())
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.be.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after commit it has nothing to undo
	for _, q := range []string{"DELETE FROM nft_rank_token", "DELETE FROM nft_rank_height", "DELETE FROM nft_owner_collection"} {
		if err := tx.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for _, m := range ms {
		if m.Version != 5 && m.Version != 7 {
			continue
		}
		for _, line := range strings.Split(m.SQL, "\n") {
			if strings.HasPrefix(line, "INSERT INTO nft_rank_") || strings.HasPrefix(line, "INSERT INTO nft_owner_collection") {
				if err := tx.Exec(ctx, line); err != nil {
					t.Fatal(err)
				}
				n++
			}
		}
	}
	if n != 5 {
		t.Fatalf("migrations 0005 and 0007 have %d fill statements, want 4 + 1", n)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// checkOwnerCollections compares nft_owner_collection with the model's live tokens, and every
// owner's collections/by_account answer with the model's.
func checkOwnerCollections(t *testing.T, db *DB, nm nftModel) {
	t.Helper()
	ctx := context.Background()
	want := map[string]int64{}
	owners := map[string][]byte{}
	for _, tk := range nm.tokens {
		want[string(tk.Owner)+"/"+string(tk.Collection)]++
		owners[string(tk.Owner)] = tk.Owner
	}
	r, err := db.be.Reader().Query(ctx, "SELECT owner, collection_addr, n FROM nft_owner_collection")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for r.Next() {
		var o, c []byte
		var n int64
		if err := r.Scan(&o, &c, &n); err != nil {
			t.Fatal(err)
		}
		got[string(o)+"/"+string(c)] = n
	}
	r.Close()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("nft_owner_collection %v, want %v", got, want)
	}
	for _, o := range owners {
		page, err := db.Collections(ctx, CollectionFilter{Owner: o}, Page{Limit: 100, CountTotal: true})
		if err != nil {
			t.Fatal(err)
		}
		var idx []int
		for _, c := range page.Collections {
			idx = append(idx, int(c.Addr[0]-0xc0))
		}
		if w := ownersColls(nm, o); !slices.Equal(idx, w) || page.Total != int64(len(w)) {
			t.Fatalf("collections of %x: %v (total %d), want %v", o, idx, page.Total, w)
		}
	}
}

// TestOwnerCollectionGone: an owner whose last token of a collection leaves (transfer, burn)
// loses the collection from collections/by_account and its nft_owner_collection row, within a
// transaction and across transactions.
func TestOwnerCollectionGone(t *testing.T) {
	coll := bytes.Repeat([]byte{0xc5}, 20)
	a, b := acct(1), acct(2)
	blk := func(h int64, ch ...NFTChange) BlockBundle {
		return BlockBundle{Block: Block{ChainID: "c", Height: h, Hash: []byte{byte(h)}, Time: time.Unix(h, 0).UTC(), TotalFee: []byte("[]")}, Extensions: []ExtensionRows{&NFTRows{NFTs: ch}}}
	}
	mint := func(id string, o []byte) NFTChange {
		return NFTChange{Kind: NFTMint, Collection: coll, TokenID: id, Owner: o, URI: "u"}
	}
	move := func(id string, o []byte) NFTChange {
		return NFTChange{Kind: NFTTransfer, Collection: coll, TokenID: id, Owner: o}
	}
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		steps := []struct {
			blocks []BlockBundle
			want   map[string]int // owner byte → collections/by_account total
		}{
			{[]BlockBundle{blk(1, NFTChange{Kind: NFTCreateCollection, Collection: coll, Name: "c", Creator: a}, mint("1", a), mint("2", a))}, map[string]int{"a": 1, "b": 0}},
			// Both of a's tokens leave in one block, one by transfer and one by burn.
			{[]BlockBundle{blk(2, move("1", b), NFTChange{Kind: NFTBurn, Collection: coll, TokenID: "2"})}, map[string]int{"a": 0, "b": 1}},
			// Back and forth within one transaction: b ends with none.
			{[]BlockBundle{blk(3, move("1", a)), blk(4, move("1", b)), blk(5, move("1", a))}, map[string]int{"a": 1, "b": 0}},
		}
		for i, s := range steps {
			if err := db.WriteBlocks(ctx, s.blocks); err != nil {
				t.Fatal(err)
			}
			for name, o := range map[string][]byte{"a": a, "b": b} {
				page, err := db.Collections(ctx, CollectionFilter{Owner: o}, Page{Limit: 10, CountTotal: true})
				if err != nil {
					t.Fatal(err)
				}
				if page.Total != int64(s.want[name]) || len(page.Collections) != s.want[name] {
					t.Errorf("step %d: %s has %d collections (total %d), want %d", i, name, len(page.Collections), page.Total, s.want[name])
				}
			}
			var rows, zero int64
			if err := queryRow(ctx, db.be.Reader(), "SELECT COUNT(*), COUNT(CASE WHEN n <= 0 THEN 1 END) FROM nft_owner_collection", nil, &rows, &zero); err != nil {
				t.Fatal(err)
			}
			if rows != 1 || zero != 0 {
				t.Errorf("step %d: %d nft_owner_collection rows, %d of them not positive; want 1, 0", i, rows, zero)
			}
		}
	})
}
