package engine

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

func TestStorePrune(t *testing.T) {
	s := newStore()
	s.set("m/a", 1, []byte("1"))
	s.set("m/a", 3, []byte("3"))
	s.set("m/a", 7, []byte("7"))
	s.set("m/b", 2, []byte("x"))
	s.set("m/b", 4, nil) // deleted before the base: goes entirely
	s.set("m/c", 2, []byte("c"))
	s.set("m/c", 6, nil) // deleted after the base: still readable at 5
	s.set("m/d", 6, []byte("d"))
	s.prune(5, nil)
	cases := []struct {
		key    string
		height int64
		want   string
		ok     bool
	}{
		{"m/a", 5, "3", true}, {"m/a", 6, "3", true}, {"m/a", 7, "7", true},
		{"m/b", 5, "", false},
		{"m/c", 5, "c", true}, {"m/c", 6, "", false},
		{"m/d", 5, "", false}, {"m/d", 6, "d", true},
	}
	for _, c := range cases {
		v, ok := s.get(c.key, c.height)
		if ok != c.ok || string(v) != c.want {
			t.Errorf("after prune(5): get(%s,%d) = %q %v, want %q %v", c.key, c.height, v, ok, c.want, c.ok)
		}
	}
	if len(s.versions["m/a"]) != 2 {
		t.Errorf("m/a keeps %d versions, want 2 (the one visible at 5 and the newer one)", len(s.versions["m/a"]))
	}
	if _, ok := s.versions["m/b"]; ok || len(s.keys) != 3 {
		t.Errorf("m/b survived the prune: keys %v", s.keys)
	}
}

// TestStorePruneForgets: a record the forget predicate names goes with the prune that moves
// the base past its newest value, and not before; the predicate reads the store at the base
// (here: forget "m/r/<x>" only while "m/keep/<x>" is absent).
func TestStorePruneForgets(t *testing.T) {
	s := newStore()
	s.set("m/r/1", 2, []byte("settled"))
	s.set("m/r/2", 3, []byte("settled"))
	s.set("m/r/2", 8, []byte("rewritten")) // newest value above the base: kept
	s.set("m/r/3", 4, []byte("settled"))
	s.set("m/keep/3", 4, []byte{1}) // the predicate keeps m/r/3
	s.set("m/other", 1, []byte("x"))
	s.set("m/r/4", 6, []byte("recent")) // above the base: kept
	var asked []string
	forget := func(key string, _ []byte) bool {
		asked = append(asked, key)
		rest, ok := strings.CutPrefix(key, "m/r/")
		if !ok {
			return false
		}
		_, keep := s.get("m/keep/"+rest, 5)
		return !keep
	}
	s.prune(5, forget)
	for _, c := range []struct {
		key    string
		height int64
		ok     bool
	}{
		{"m/r/1", 5, false}, {"m/r/1", 9, false},
		{"m/r/2", 5, true}, {"m/r/2", 8, true},
		{"m/r/3", 5, true}, {"m/other", 5, true}, {"m/r/4", 6, true},
	} {
		if _, ok := s.get(c.key, c.height); ok != c.ok {
			t.Errorf("after prune(5): %s at %d present %v, want %v", c.key, c.height, ok, c.ok)
		}
	}
	if slices.Contains(s.keys, "m/r/1") || len(s.keys) != len(s.versions) {
		t.Errorf("keys %v out of step with the versions (%d)", s.keys, len(s.versions))
	}
	for _, k := range asked {
		if k == "m/r/2" || k == "m/r/4" {
			t.Errorf("asked about %s, whose newest value lies above the base", k)
		}
	}
}

// TestRetainBlocks: a chain that keeps 20 blocks produces exactly the blocks of one that
// keeps everything, answers the retained heights as before, and refuses the pruned ones
// with CometBFT's error.
func TestRetainBlocks(t *testing.T) {
	newChain := func(retain int) *Chain {
		c, err := New(Config{ChainID: "retain-1", Kind: KindWasm, Seed: 4, NumAccounts: 4, RetainBlocks: retain,
			Modules: []sim.Module{BankTraffic{Denoms: []string{"umin"}, Max: 3}}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	full, pruned := newChain(0), newChain(20)
	var firstTx [32]byte
	for range 100 {
		fb, err := full.ProduceBlock()
		if err != nil {
			t.Fatal(err)
		}
		pb, err := pruned.ProduceBlock()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(fb.ID.Hash, pb.ID.Hash) || !bytes.Equal(fb.ResultAppHash, pb.ResultAppHash) {
			t.Fatalf("height %d: pruning changed the block", fb.Height)
		}
		if firstTx == ([32]byte{}) && len(fb.TxHashes) > 0 {
			firstTx = fb.TxHashes[0]
		}
	}
	base := pruned.Base()
	if full.Base() != 1 || base < 101-20-2+1 || base > 101-20+1 {
		t.Fatalf("bases: full %d, pruned %d (height %d, retain 20, pruned every 2)", full.Base(), base, pruned.Height())
	}
	if got := len(pruned.blocks); int64(got) != pruned.Height()-base+1 {
		t.Errorf("%d blocks held for heights %d…%d", got, base, pruned.Height())
	}

	var pe *PrunedHeightError
	if _, err := pruned.Block(base - 1); !errors.As(err, &pe) || err.Error() != "height "+itoa(base-1)+" is not available, lowest height is "+itoa(base) {
		t.Errorf("Block(base-1): %v", err)
	}
	if _, err := pruned.Query(1); !errors.As(err, &pe) {
		t.Errorf("Query(1): %v", err)
	}
	if firstTx == ([32]byte{}) {
		t.Fatal("no traffic")
	}
	if _, _, ok := pruned.TxByHash(firstTx); ok {
		t.Error("a pruned tx is still found by hash")
	}
	// Every retained height reads the same state as on the unpruned chain.
	for h := base; h <= pruned.Height(); h++ {
		pq, err := pruned.Query(h)
		if err != nil {
			t.Fatal(err)
		}
		fq, _ := full.Query(h)
		for _, a := range full.Accounts() {
			if p, f := Balances(pq, a.Addr), Balances(fq, a.Addr); CoinsString(p) != CoinsString(f) {
				t.Fatalf("height %d, %s: balances %s, unpruned %s", h, a.Bech32, CoinsString(p), CoinsString(f))
			}
		}
		if _, err := pruned.Block(h); err != nil {
			t.Fatalf("retained height %d: %v", h, err)
		}
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
