package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// chainOf gives m's bundles the hashes of one chain: seed picks the chain, so two seeds are
// two chains with the same heights and chain id (a reset).
func chainOf(m model, seed byte) []BlockBundle {
	out := slices.Clone(m.bundles)
	for i := range out {
		h := out[i].Block.Height
		out[i].Block.Hash = []byte{seed, byte(h >> 8), byte(h)}
		out[i].Block.LastHash = nil
		if h > 1 {
			out[i].Block.LastHash = []byte{seed, byte((h - 1) >> 8), byte(h - 1)}
		}
	}
	return out
}

// TestWriteBlocksChecksChain: every write continues the stored chain or is refused whole with
// a *ChainMismatchError naming both hashes: a parent hash that is not the stored top's (a
// reset, a repointed node), a batch whose blocks do not link, another chain id. The identity
// is recorded with the first block.
func TestWriteBlocksChecksChain(t *testing.T) {
	m := buildModel(10)
	a, b := chainOf(m, 1), chainOf(m, 2)
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		if _, ok, err := db.ChainIdentity(ctx); ok || err != nil {
			t.Fatalf("empty store has an identity: %v %v", ok, err)
		}
		if err := db.WriteBlocks(ctx, a[:5]); err != nil {
			t.Fatal(err)
		}
		id, ok, err := db.ChainIdentity(ctx)
		if err != nil || !ok || id.ChainID != a[0].Block.ChainID || id.FirstHeight != 1 || string(id.FirstHash) != string(a[0].Block.Hash) {
			t.Fatalf("identity %+v %v %v", id, ok, err)
		}
		before := dump(t, db)
		otherID := slices.Clone(a[5:7])
		otherID[1].Block.ChainID = "other-1"
		broken := slices.Clone(a[5:8])
		broken[2].Block.LastHash = b[7].Block.LastHash
		for _, c := range []struct {
			name    string
			batch   []BlockBundle
			mention []string
		}{
			{"reset: the parent is not the stored top", b[5:8], []string{"stored block 5 is 010005", "block 6 follows 020005"}},
			{"a batch that does not link", broken, []string{"block 8 follows 020007"}},
			{"another chain id", otherID, []string{`"other-1"`}},
		} {
			err := db.WriteBlocks(ctx, c.batch)
			var mm *ChainMismatchError
			if !errors.As(err, &mm) || !errors.Is(err, ErrChainMismatch) {
				t.Fatalf("%s: %v, want a chain mismatch", c.name, err)
			}
			for _, s := range c.mention {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%s: %q lacks %q", c.name, err, s)
				}
			}
			if dump(t, db) != before {
				t.Fatalf("%s: the refused write left rows", c.name)
			}
		}
		// The right chain goes on; a source without parent hashes is not checked.
		if err := db.WriteBlocks(ctx, a[5:8]); err != nil {
			t.Fatal(err)
		}
		if err := db.WriteBlocks(ctx, m.bundles[8:]); err != nil {
			t.Fatal(err)
		}
		if h, _ := db.BlockHash(ctx, 7); string(h) != string(a[6].Block.Hash) {
			t.Fatalf("BlockHash(7) = %x", h)
		}
		if _, err := db.BlockHash(ctx, 99); !errors.Is(err, ErrNotFound) {
			t.Fatalf("BlockHash(99): %v", err)
		}
	})
}

// TestResetLeavesAFreshStore: after Reset the store dumps as a freshly migrated one, the
// readers see it empty at once, and writing a new chain into it stores what writing that
// chain into a fresh store does.
func TestResetLeavesAFreshStore(t *testing.T) {
	m := buildModel(10)
	a, b := chainOf(m, 1), chainOf(m, 2)
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db, ref := open(t), open(t)
			fresh := dump(t, db)
			if err := db.WriteBlocks(ctx, a); err != nil {
				t.Fatal(err)
			}
			if p, err := db.Txs(ctx, TxFilter{Account: acct(1)}, Page{Limit: 10}); err != nil || len(p.Txs) == 0 {
				t.Fatalf("txs of an account: %d %v", len(p.Txs), err) // fills the readers' caches
			}
			if err := db.Reset(ctx); err != nil {
				t.Fatal(err)
			}
			if got := dump(t, db); got != fresh {
				t.Fatalf("after Reset the store is not as fresh: %s", firstLineDiff(fresh, got))
			}
			if h, _ := db.IndexedHeight(ctx); h != 0 {
				t.Fatalf("indexed height %d after Reset", h)
			}
			if p, err := db.Txs(ctx, TxFilter{Account: acct(1)}, Page{Limit: 10}); err != nil || len(p.Txs) != 0 {
				t.Fatalf("txs of an account after Reset: %d %v", len(p.Txs), err)
			}
			if err := db.WriteBlocks(ctx, b); err != nil {
				t.Fatalf("the new chain after Reset: %v", err)
			}
			if err := ref.WriteBlocks(ctx, b); err != nil {
				t.Fatal(err)
			}
			if got, want := dump(t, db), dump(t, ref); got != want {
				t.Fatalf("the new chain after Reset differs from a fresh store's: %s", firstLineDiff(want, got))
			}
		})
	}
}

func firstLineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d: %q, want %q", i+1, y, x)
		}
	}
	return "equal"
}
