package store

import (
	"context"
	"errors"
	"math/big"
	"slices"
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
			return BlockBundle{Block: Block{ChainID: "c", Height: h, Hash: []byte{byte(h)}, Time: time.Unix(h, 0).UTC(), TotalFee: []byte("[]")}, RichList: rl}
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
		bad.RichList.Sets = []BalanceSet{{"0xaa", acc(2), n("7")}}
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
