package store

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"testing"
	"time"
)

// TestRichListBalances: an account's balances equal the holders lists of every denom filtered
// to the account (zero balances left out), at the rich list's height, read after each batch;
// an account holding more denoms than the cap gets the lowest ones and Truncated.
func TestRichListBalances(t *testing.T) {
	acc := func(i byte) []byte { b := make([]byte, 20); b[0], b[19] = i, i; return b }
	denoms := []string{"0xaa", "move/0f", "uinit", "uusdc"}
	var bundles []BlockBundle
	for h := int64(1); h <= 30; h++ {
		rl := &RichListChanges{}
		for j := int64(0); j < 1+h%4; j++ {
			d, a := denoms[(h+j)%4], acc(byte((h*5+j*3)%7))
			if (h+j)%5 == 0 {
				rl.Sets = append(rl.Sets, BalanceSet{d, a, big.NewInt(0)}) // a balance spent: kept as a zero row
			} else {
				rl.Sets = append(rl.Sets, BalanceSet{d, a, big.NewInt(h*100 + j)})
			}
		}
		bundles = append(bundles, BlockBundle{Block: Block{ChainID: "c", Height: h, Hash: []byte{byte(h)}, Time: time.Unix(h, 0).UTC(), TotalFee: []byte("[]")}, Extensions: []ExtensionRows{rl}})
	}
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		if b, err := db.Balances(ctx, acc(1)); err != nil || b.Height != 0 || len(b.Balances) != 0 || b.Truncated {
			t.Fatalf("before any write: %+v %v", b, err)
		}
		checked := 0
		for _, part := range [][2]int{{0, 1}, {1, 10}, {10, 11}, {11, 30}} {
			if err := db.WriteBlocks(ctx, bundles[part[0]:part[1]]); err != nil {
				t.Fatal(err)
			}
			for i := byte(0); i < 9; i++ { // 7 and 8 never hold anything
				var want []string
				for _, d := range denoms {
					pg, err := db.Holders(ctx, d, Page{Limit: 1000, Desc: true})
					if err != nil {
						t.Fatal(err)
					}
					for _, h := range pg.Holders {
						if string(h.Account) == string(acc(i)) && h.Amount.Sign() > 0 {
							want = append(want, d+"="+h.Amount.String())
						}
					}
				}
				got, err := db.Balances(ctx, acc(i))
				if err != nil {
					t.Fatal(err)
				}
				var g []string
				for _, b := range got.Balances {
					g = append(g, b.Denom+"="+b.Amount.String())
				}
				if !slices.Equal(g, want) || got.Height != int64(part[1]) || got.Truncated || got.Balances == nil {
					t.Fatalf("after block %d, account %d: %v at %d (truncated %v), want %v at %d", part[1], i, g, got.Height, got.Truncated, want, part[1])
				}
				checked += len(g)
			}
		}
		if checked < 20 {
			t.Fatalf("only %d balances compared: the model holds too little", checked)
		}
		// One account over the cap: the lowest denoms, in order, and Truncated.
		rl := &RichListChanges{}
		var all []string
		for k := 0; k <= MaxAccountBalances+1; k++ {
			d := fmt.Sprintf("d%05d", k)
			all = append(all, d)
			rl.Sets = append(rl.Sets, BalanceSet{d, acc(9), big.NewInt(int64(k + 1))})
		}
		if err := db.WriteBlocks(ctx, []BlockBundle{{Block: Block{ChainID: "c", Height: 31, Hash: []byte{31}, Time: time.Unix(31, 0).UTC(), TotalFee: []byte("[]")}, Extensions: []ExtensionRows{rl}}}); err != nil {
			t.Fatal(err)
		}
		got, err := db.Balances(ctx, acc(9))
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Balances) != MaxAccountBalances || !got.Truncated || got.Height != 31 {
			t.Fatalf("over the cap: %d balances, truncated %v, height %d", len(got.Balances), got.Truncated, got.Height)
		}
		for k, b := range got.Balances {
			if b.Denom != all[k] || b.Amount.Int64() != int64(k+1) {
				t.Fatalf("over the cap: balance %d is %s=%s, want %s=%d", k, b.Denom, b.Amount, all[k], k+1)
			}
		}
	})
}
