package store

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
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
	r, err := db.be.reader().query(ctx, "SELECT scope, "+l.cols[0]+", "+l.cols[1]+", "+l.cols[2]+", n FROM "+l.table+
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

// resetRanks replaces the bucket rows by what migration 0005 fills an existing store with.
func resetRanks(t *testing.T, db *DB) {
	t.Helper()
	ctx := context.Background()
	dialect := "sqlite"
	if _, ok := db.be.(*pgBackend); ok {
		dialect = "postgres"
	}
	ms, err := loadMigrations(dialect)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.be.begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.rollback(ctx) //nolint:errcheck // after commit it has nothing to undo
	for _, q := range []string{"DELETE FROM nft_rank_token", "DELETE FROM nft_rank_height"} {
		if err := tx.exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for _, m := range ms {
		if m.version != 5 {
			continue
		}
		for _, line := range strings.Split(m.sql, "\n") {
			if strings.HasPrefix(line, "INSERT INTO nft_rank_") {
				if err := tx.exec(ctx, line); err != nil {
					t.Fatal(err)
				}
				n++
			}
		}
	}
	if n != 4 {
		t.Fatalf("migration 0005 has %d fill statements, want 4", n)
	}
	if err := tx.commit(ctx); err != nil {
		t.Fatal(err)
	}
}
