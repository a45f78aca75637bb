package store

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRichList: genesis sets, changes across batches, ties ordered by account, zero balances
// kept, uint256 amounts, a change going negative refused whole and then fixed by a set.
func TestRichList(t *testing.T) {
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		acc := func(i byte) []byte { b := make([]byte, 20); b[19] = i; return b }
		n := func(s string) *big.Int {
			v, ok := new(big.Int).SetString(s, 10)
			if !ok {
				t.Fatal(s)
			}
			return v
		}
		big1 := "115792089237316195423570985008687907853269984665640564039457584007913129639935" // 2^256-1
		blk := func(h int64, rl *RichListChanges) BlockBundle {
			return BlockBundle{Block: Block{ChainID: "c", Height: h, Hash: []byte{byte(h)}, Time: time.Unix(h, 0).UTC(), TotalFee: []byte("[]")}, Extensions: []ExtensionRows{rl}}
		}
		if h, _ := db.RichListHeight(ctx); h != 0 {
			t.Fatalf("height %d before any write", h)
		}
		err := db.WriteBlocks(ctx, []BlockBundle{
			blk(1, &RichListChanges{Sets: []BalanceSet{{"0xaa", acc(1), n("100")}, {"0xaa", acc(2), n("50")}, {"0xbb", acc(1), n(big1)}},
				Aliases: map[string]string{"gas": "0xaa"}}),
			blk(2, &RichListChanges{Changes: []BalanceChange{{"0xaa", acc(1), n("-50")}, {"0xaa", acc(3), n("50")}}}),
		})
		if err != nil {
			t.Fatal(err)
		}
		// acc 2 → 0 (kept), acc 4 new; ties at 50 ordered by account.
		if err := db.WriteBlocks(ctx, []BlockBundle{blk(3, &RichListChanges{Changes: []BalanceChange{{"0xaa", acc(2), n("-50")}, {"0xaa", acc(4), n("50")}}})}); err != nil {
			t.Fatal(err)
		}
		type row struct {
			acc byte
			amt string
		}
		list := func(denom string, p Page) ([]row, int64) {
			pg, err := db.Holders(ctx, denom, p)
			if err != nil {
				t.Fatal(err)
			}
			var out []row
			for _, h := range pg.Holders {
				out = append(out, row{h.Account[19], h.Amount.String()})
			}
			return out, pg.Total
		}
		desc := []row{{1, "50"}, {3, "50"}, {4, "50"}, {2, "0"}}
		if got, total := list("0xaa", Page{Limit: 10, Desc: true, CountTotal: true}); !slices.Equal(got, desc) || total != 4 {
			t.Errorf("desc %v %d, want %v 4", got, total, desc)
		}
		asc := slices.Clone(desc)
		slices.Reverse(asc)
		if got, _ := list("0xaa", Page{Limit: 10}); !slices.Equal(got, asc) {
			t.Errorf("asc %v, want %v", got, asc)
		}
		if got, _ := list("0xaa", Page{Limit: 2, Offset: 1, Desc: true}); !slices.Equal(got, desc[1:3]) {
			t.Errorf("offset 1 %v", got)
		}
		if got, total := list("0xbb", Page{Limit: 10, Desc: true, CountTotal: true}); len(got) != 1 || got[0].amt != big1 || total != 1 {
			t.Errorf("uint256 max: %v %d", got, total)
		}
		if got, total := list("0xcc", Page{Limit: 10, Desc: true, CountTotal: true}); len(got) != 0 || total != 0 {
			t.Errorf("unknown denom: %v %d", got, total)
		}
		if d, _ := db.RichListAlias(ctx, "gas"); d != "0xaa" {
			t.Errorf("alias gas → %q", d)
		}
		if d, _ := db.RichListAlias(ctx, "nope"); d != "" {
			t.Errorf("alias nope → %q", d)
		}
		// A change below zero: nothing of the batch is written, the error names it.
		bad := blk(4, &RichListChanges{Changes: []BalanceChange{{"0xaa", acc(3), n("-20")}, {"0xaa", acc(2), n("-1")}}})
		var neg *NegativeBalanceError
		if err := db.WriteBlocks(ctx, []BlockBundle{bad}); !errors.As(err, &neg) || neg.Height != 4 || neg.Amount.String() != "-1" || neg.Account[19] != 2 {
			t.Fatalf("negative: %v", err)
		}
		if h, _ := db.IndexedHeight(ctx); h != 3 {
			t.Fatalf("indexed %d after a refused batch", h)
		}
		// The chain says acc 2 holds 7 after block 4: the set wins over the changes.
		rl, _ := RowsOf[*RichListChanges](&bad)
		rl.Sets = []BalanceSet{{"0xaa", acc(2), n("7")}}
		if err := db.WriteBlocks(ctx, []BlockBundle{bad}); err != nil {
			t.Fatal(err)
		}
		want := []row{{1, "50"}, {4, "50"}, {3, "30"}, {2, "7"}}
		if got, _ := list("0xaa", Page{Limit: 10, Desc: true}); !slices.Equal(got, want) {
			t.Errorf("after fix %v, want %v", got, want)
		}
		if h, _ := db.RichListHeight(ctx); h != 4 {
			t.Errorf("rich list height %d, want 4", h)
		}
	})
}

// TestRichListRankBuckets checks the rich list's rank buckets (buckets of 2, split past 4)
// against a brute-force model: balances of two denoms set, raised, lowered to zero and tied
// over 40 blocks written in batches of varying size, one batch after the store was left as
// migration 0006 leaves a version-5 store (amount_desc recomputed by its UPDATE, one bucket per
// denom). Every bucket counts exactly its holders, and every offset page in both directions
// equals the model's.
func TestRichListRankBuckets(t *testing.T) {
	type hkey struct {
		denom string
		acc   byte
	}
	acc := func(i byte) []byte { b := make([]byte, 20); b[0] = i; return b }
	var bundles []BlockBundle
	bal := map[hkey]int64{}
	denoms := []string{"0xaa", "uinit"}
	for h := int64(1); h <= 40; h++ {
		rl := &RichListChanges{}
		for j := int64(0); j < 1+h%5; j++ {
			k := hkey{denoms[(h+j)%2], byte((h*7 + j*13) % 23)}
			switch (h + j) % 4 {
			case 0: // set, sometimes to a popular amount (ties)
				v := (h * j) % 3 * 100
				rl.Sets = append(rl.Sets, BalanceSet{k.denom, acc(k.acc), big.NewInt(v)})
				bal[k] = v
			case 1: // spend everything (a zero balance stays listed)
				if bal[k] > 0 {
					rl.Changes = append(rl.Changes, BalanceChange{k.denom, acc(k.acc), big.NewInt(-bal[k])})
					bal[k] = 0
					continue
				}
				fallthrough
			default:
				d := h*31%97 + 1
				rl.Changes = append(rl.Changes, BalanceChange{k.denom, acc(k.acc), big.NewInt(d)})
				bal[k] += d
			}
		}
		bundles = append(bundles, BlockBundle{Block: Block{ChainID: "c", Height: h, Hash: []byte{byte(h)}, Time: time.Unix(h, 0).UTC(), TotalFee: []byte("[]")}, Extensions: []ExtensionRows{rl}})
	}
	// The model's list of a denom, amount descending then account ascending.
	model := func(denom string) [][2]int64 {
		var out [][2]int64
		for k, v := range bal {
			if k.denom == denom {
				out = append(out, [2]int64{v, int64(k.acc)})
			}
		}
		slices.SortFunc(out, func(a, b [2]int64) int {
			if a[0] != b[0] {
				return int(b[0] - a[0])
			}
			return int(a[1] - b[1])
		})
		return out
	}
	// modelAfter replays the first k bundles (changes, then sets, as the writer applies them).
	modelAfter := func(k int, denom string) [][2]int64 {
		b := map[hkey]int64{}
		for i := range bundles[:k] {
			rl, _ := RowsOf[*RichListChanges](&bundles[i])
			for _, c := range rl.Changes {
				b[hkey{c.Denom, c.Account[0]}] += c.Delta.Int64()
			}
			for _, s := range rl.Sets {
				b[hkey{s.Denom, s.Account[0]}] = s.Amount.Int64()
			}
		}
		var out [][2]int64
		for k, v := range b {
			if k.denom == denom {
				out = append(out, [2]int64{v, int64(k.acc)})
			}
		}
		slices.SortFunc(out, func(a, b [2]int64) int {
			if a[0] != b[0] {
				return int(b[0] - a[0])
			}
			return int(a[1] - b[1])
		})
		return out
	}
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		for i, part := range [][2]int{{0, 1}, {1, 12}, {12, 13}, {13, 14}, {14, 40}} {
			if err := db.WriteBlocks(ctx, bundles[part[0]:part[1]]); err != nil {
				t.Fatal(err)
			}
			if i == 1 {
				migrateRichRanks(t, db)
			}
			// Deep pages between writes: the buckets the reader keeps must follow every write.
			for _, d := range denoms {
				want := modelAfter(part[1], d)
				for _, off := range []int64{2, 5, int64(len(want)) - 1} {
					pg, err := db.Holders(ctx, d, Page{Limit: 2, Desc: true, Offset: off})
					if err != nil {
						t.Fatal(err)
					}
					var got [][2]int64
					for _, h := range pg.Holders {
						got = append(got, [2]int64{h.Amount.Int64(), int64(h.Account[0])})
					}
					w := want[min(max(off, 0), int64(len(want))):min(max(off+2, 0), int64(len(want)))]
					if !slices.Equal(got, w) && (len(got) > 0 || len(w) > 0) {
						t.Fatalf("after block %d, %s offset %d: got %v, want %v", part[1], d, off, got, w)
					}
				}
			}
		}
		for _, d := range denoms {
			want := model(d)
			checkRichRanks(t, db, d, want)
			for _, desc := range []bool{true, false} {
				list := slices.Clone(want)
				if !desc {
					slices.Reverse(list)
				}
				for off := int64(0); off <= int64(len(list))+1; off++ {
					pg, err := db.Holders(ctx, d, Page{Limit: 3, Desc: desc, Offset: off})
					if err != nil {
						t.Fatal(err)
					}
					var got [][2]int64
					for _, h := range pg.Holders {
						got = append(got, [2]int64{h.Amount.Int64(), int64(h.Account[0])})
					}
					w := list[min(off, int64(len(list))):min(off+3, int64(len(list)))]
					if !slices.Equal(got, w) && (len(got) > 0 || len(w) > 0) {
						t.Fatalf("%s desc=%v offset %d: got %v, want %v", d, desc, off, got, w)
					}
				}
			}
		}
	})
}

// checkRichRanks compares a denom's bucket rows with the model's holders.
func checkRichRanks(t *testing.T, db *DB, denom string, holders [][2]int64) {
	t.Helper()
	r, err := db.be.Reader().Query(context.Background(), "SELECT amount_desc, account, n FROM rich_list_rank WHERE denom = ? ORDER BY amount_desc, account", denom)
	if err != nil {
		t.Fatal(err)
	}
	type bucket struct {
		lo []any
		n  int64
	}
	var bs []bucket
	for r.Next() {
		var ad, a []byte
		var n int64
		if err := r.Scan(&ad, &a, &n); err != nil {
			t.Fatal(err)
		}
		bs = append(bs, bucket{[]any{ad, a}, n})
	}
	r.Close()
	keyOf := func(h [2]int64) []any {
		amt, _ := encodeAmount(big.NewInt(h[0]))
		a := make([]byte, 20)
		a[0] = byte(h[1])
		return []any{amountDesc(amt), a}
	}
	if len(bs) == 0 || !sameKey(bs[0].lo, richRank.first()) {
		t.Fatalf("%s: first bucket %v, want the list's first key", denom, bs)
	}
	for i, b := range bs {
		var n int64
		for _, h := range holders {
			k := keyOf(h)
			if richRank.cmpKey(k, b.lo) >= 0 && (i+1 == len(bs) || richRank.cmpKey(k, bs[i+1].lo) < 0) {
				n++
			}
		}
		if b.n != n || b.n > 2*rankBucketSize || (i > 0 && b.n == 0) {
			t.Fatalf("%s bucket %d of %d from %x: n = %d, model %d", denom, i, len(bs), b.lo, b.n, n)
		}
	}
	if len(bs) < 3 {
		t.Fatalf("%s: %d buckets for %d holders: the offsets never went through a seek", denom, len(bs), len(holders))
	}
}

// migrateRichRanks leaves the store as migration 0006 leaves a version-5 store: amount_desc
// recomputed by the migration's UPDATE (from a wrong value) and one bucket per denom.
func migrateRichRanks(t *testing.T, db *DB) {
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
	for _, q := range []string{"DELETE FROM rich_list_rank", "UPDATE rich_list SET amount_desc = amount"} {
		if err := tx.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for _, m := range ms {
		if m.Version != 6 {
			continue
		}
		for _, line := range strings.Split(m.SQL, "\n") {
			if strings.HasPrefix(line, "INSERT INTO rich_list_rank") || strings.HasPrefix(line, "UPDATE rich_list SET amount_desc") {
				if err := tx.Exec(ctx, line); err != nil {
					t.Fatal(err)
				}
				n++
			}
		}
	}
	if n != 2 {
		t.Fatalf("migration 0006 has %d fill statements, want 2", n)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}
