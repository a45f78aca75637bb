package store

import (
	"context"
	"errors"
	"math/big"
	"testing"
	"time"
)

// TestRichListOrdered: ordered changes apply only where they continue the rich list. Blocks
// written while the list has not started (no Start) or is behind leave it untouched; the
// follower's WriteRichList starts it and brings it up, skipping a height already applied; the
// block writer then carries it on in its own transactions.
func TestRichListOrdered(t *testing.T) {
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		acc := func(i byte) []byte { b := make([]byte, 20); b[19] = i; return b }
		change := func(i byte, d int64) BalanceChange { return BalanceChange{"u", acc(i), big.NewInt(d)} }
		blk := func(h int64, rl *RichListChanges) BlockBundle {
			b := BlockBundle{Block: Block{ChainID: "c", Height: h, Hash: []byte{byte(h)}, Time: time.Unix(h, 0).UTC(), TotalFee: []byte("[]")}}
			if rl != nil { // a block without rich-list rows
				b.Extensions = []ExtensionRows{rl}
			}
			return b
		}
		ordered := func(cs ...BalanceChange) *RichListChanges { return &RichListChanges{Changes: cs, Ordered: true} }
		height := func(want int64) {
			t.Helper()
			if h, err := db.RichListHeight(ctx); err != nil || h != want {
				t.Fatalf("rich_list_height %d (%v), want %d", h, err, want)
			}
		}
		balance := func(i byte, want int64) {
			t.Helper()
			pg, err := db.Holders(ctx, "u", Page{Limit: 100, Desc: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range pg.Holders {
				if h.Account[19] == i {
					if h.Amount.Int64() != want {
						t.Fatalf("holder %d: %s, want %d", i, h.Amount, want)
					}
					return
				}
			}
			if want != 0 {
				t.Fatalf("holder %d missing, want %d", i, want)
			}
		}
		// Not started: blocks 1-3 go in without their changes (block 2 has none computed).
		if err := db.WriteBlocks(ctx, []BlockBundle{blk(1, ordered(change(1, 5))), blk(2, nil), blk(3, ordered(change(2, 7)))}); err != nil {
			t.Fatal(err)
		}
		height(0)
		// A follower block that does not start the list is skipped too.
		if err := db.WriteRichList(ctx, []RichListBlock{{Height: 1, Changes: RichListChanges{Changes: []BalanceChange{change(1, 5)}}}}); err != nil {
			t.Fatal(err)
		}
		height(0)
		// Started at height 1 with genesis balances, then 2 and 3 applied, a repeat of 2 skipped.
		start := RichListChanges{Changes: []BalanceChange{change(1, 5)}, Sets: []BalanceSet{{"u", acc(3), big.NewInt(100)}}, Start: true}
		if err := db.WriteRichList(ctx, []RichListBlock{{Height: 1, Changes: start}, {Height: 2}}); err != nil {
			t.Fatal(err)
		}
		height(2)
		if err := db.WriteRichList(ctx, []RichListBlock{{Height: 2, Changes: RichListChanges{Changes: []BalanceChange{change(1, 1000)}}},
			{Height: 3, Changes: RichListChanges{Changes: []BalanceChange{change(2, 7)}}}}); err != nil {
			t.Fatal(err)
		}
		height(3)
		balance(1, 5)
		balance(2, 7)
		balance(3, 100)
		// In step again: the block writer applies block 4; block 5 without changes breaks the
		// run, so block 6 is left for the follower.
		if err := db.WriteBlocks(ctx, []BlockBundle{blk(4, ordered(change(3, -40))), blk(5, nil), blk(6, ordered(change(1, 1)))}); err != nil {
			t.Fatal(err)
		}
		height(4)
		balance(3, 60)
		balance(1, 5)
		// A follower block going below zero writes nothing.
		err := db.WriteRichList(ctx, []RichListBlock{{Height: 5, Changes: RichListChanges{Changes: []BalanceChange{change(2, -8)}}}})
		if e := (*NegativeBalanceError)(nil); !errors.As(err, &e) {
			t.Fatalf("negative follower write: %v, want a *NegativeBalanceError", err)
		}
		height(4)
	})
}
