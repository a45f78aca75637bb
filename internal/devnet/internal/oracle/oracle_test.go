package oracle

import (
	"math/big"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/devnet/internal/gateway"
)

var genesis = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

func book(t *testing.T) *Book {
	t.Helper()
	b, err := NewBook(7, genesis, 500*time.Millisecond, DefaultPairs())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPriceMovesWithinSwing: each block's price stays within the pair's swing of its
// reference, the same seed gives the same prices, and the price does move block to block.
func TestPriceMovesWithinSwing(t *testing.T) {
	b, again := book(t), book(t)
	for id, p := range b.Pairs() {
		lo := new(big.Int).Quo(new(big.Int).Mul(big.NewInt(p.Reference), big.NewInt(1_000_000-p.Swing)), big.NewInt(1_000_000))
		hi := new(big.Int).Quo(new(big.Int).Mul(big.NewInt(p.Reference), big.NewInt(1_000_000+p.Swing)), big.NewInt(1_000_000))
		distinct := map[string]bool{}
		for h := int64(1); h <= 200; h++ {
			v := b.PriceAt(p, uint64(id), h)
			if v.Cmp(lo) < 0 || v.Cmp(hi) > 0 {
				t.Fatalf("%s at %d: %s outside [%s, %s]", p.Name(), h, v, lo, hi)
			}
			if w := again.PriceAt(p, uint64(id), h); w.Cmp(v) != 0 {
				t.Fatalf("%s at %d: %s, then %s from the same seed", p.Name(), h, v, w)
			}
			distinct[v.String()] = true
		}
		if len(distinct) < 50 {
			t.Errorf("%s took only %d values in 200 blocks", p.Name(), len(distinct))
		}
	}
}

// TestFreezeSpans: a frozen pair answers the price of the block before the freeze, with
// that block's height and time, its nonce stops, and after a thaw it updates again with
// the nonce counting only the blocks that wrote.
func TestFreezeSpans(t *testing.T) {
	b := book(t)
	p, id, _ := b.Lookup("init/usd")
	if err := b.Freeze("INIT/USD", 10); err != nil { // heights 11.. get no update
		t.Fatal(err)
	}
	if err := b.Freeze("INIT/USD", 12); err != nil { // already frozen: no-op
		t.Fatal(err)
	}
	if err := b.Thaw("INIT/USD", 15); err != nil { // 16.. update again
		t.Fatal(err)
	}
	if err := b.Freeze("INIT/USD", 20); err != nil { // 21.. frozen, still open
		t.Fatal(err)
	}
	for _, tc := range []struct {
		h, written int64
		nonce      uint64
	}{
		{0, 0, 0}, {1, 1, 1}, {10, 10, 10}, {11, 10, 10}, {15, 10, 10}, {16, 16, 11}, {20, 20, 15}, {21, 20, 15}, {99, 20, 15},
	} {
		q, ok := b.L1Quote("INIT/USD", tc.h)
		if !ok {
			t.Fatal("INIT/USD unknown")
		}
		if tc.written == 0 {
			if q.Price != nil || q.Nonce != 0 {
				t.Errorf("height %d: price %v nonce %d before any update", tc.h, q.Price, q.Nonce)
			}
			continue
		}
		if q.BlockHeight != tc.written || q.Nonce != tc.nonce || q.Price.Cmp(b.PriceAt(p, id, tc.written)) != 0 || !q.BlockTime.Equal(b.BlockTime(tc.written)) {
			t.Errorf("height %d: written %d nonce %d price %s; want written %d nonce %d", tc.h, q.BlockHeight, q.Nonce, q.Price, tc.written, tc.nonce)
		}
	}
	if q, _ := b.L1Quote("ETH/USD", 30); q.BlockHeight != 30 || q.Nonce != 30 {
		t.Errorf("ETH/USD, never frozen: written %d nonce %d at 30", q.BlockHeight, q.Nonce)
	}
	if _, ok := b.L1Quote("MIN/USD", 5); ok {
		t.Error("MIN/USD has a quote; MIN has no pair")
	}
	if err := b.Freeze("MIN/USD", 5); err == nil {
		t.Error("freezing an unknown pair succeeded")
	}
}

// TestRollupMirror: a rollup's block r holds the L1's quote of height r-1, written at the
// rollup height after the L1 write, with the L1's timestamp.
func TestRollupMirror(t *testing.T) {
	b := book(t)
	l1, l2 := NewL1(b), NewRollup(b)
	if q, _ := l2.QuoteAt("ATOM/USD", 1); q.Price != nil {
		t.Errorf("rollup height 1 has a price %s before any relay", q.Price)
	}
	_ = b.Freeze("ATOM/USD", 6)
	for _, h := range []int64{2, 5, 7, 9} {
		q1, _ := l1.QuoteAt("ATOM/USD", h-1)
		q2, _ := l2.QuoteAt("ATOM/USD", h)
		if q2.Price.Cmp(q1.Price) != 0 || !q2.BlockTime.Equal(q1.BlockTime) || q2.BlockHeight != q1.BlockHeight+1 || q2.Nonce != q1.Nonce {
			t.Errorf("rollup %d: %+v; L1 %d: %+v", h, q2, h-1, q1)
		}
	}
	if q, _ := l2.QuoteAt("ATOM/USD", 9); q.BlockHeight != 7 {
		t.Errorf("rollup quote of a pair frozen after L1 height 6 written at %d, want 7", q.BlockHeight)
	}
}

func TestTimestamp(t *testing.T) {
	for in, want := range map[time.Time]string{
		genesis:                              "2026-11-21T09:00:00Z",
		genesis.Add(500 * time.Millisecond):  "2026-11-21T09:00:00.500Z",
		genesis.Add(1500 * time.Microsecond): "2026-11-21T09:00:00.001500Z",
		genesis.Add(7):                       "2026-11-21T09:00:00.000000007Z",
		{}:                                   "0001-01-01T00:00:00Z",
	} {
		if got := gateway.Timestamp(in); got != want {
			t.Errorf("Timestamp(%v) = %s, want %s", in, got, want)
		}
	}
}

func TestNewBookRejects(t *testing.T) {
	for _, ps := range [][]Pair{
		{{Base: "init", Quote: "USD", Decimals: 8, Reference: 1}},
		{{Base: "INIT", Quote: "USD", Decimals: 8, Reference: 0}},
		{{Base: "INIT", Quote: "USD", Reference: 1, Swing: 1_000_000}},
		{{Base: "INIT", Quote: "USD", Reference: 1}, {Base: "INIT", Quote: "USD", Reference: 2}},
	} {
		if _, err := NewBook(1, genesis, time.Second, ps); err == nil {
			t.Errorf("NewBook(%+v) accepted", ps)
		}
	}
}
