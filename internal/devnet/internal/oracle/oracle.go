// Package oracle is the devnet's Skip Connect x/oracle: the currency pairs an Initia L1
// quotes, a price for every pair at every L1 block (seeded, deterministic, moving block to
// block) and Connect's REST queries (`/connect/oracle/v2/...`), on the L1 and, mirrored as
// OPinit relays them, on every rollup.
//
// No price is stored in a chain's KV: a quote is a pure function of the seed, the pair and
// the L1 height (and of the spans an operator froze the pair for), so the REST answers, the
// ground truth tests read (Book.L1Quote, Module.QuoteAt) and the app hash cannot drift apart.
//
// On the L1, Connect writes every pair's price in each block (block_height and
// block_timestamp are that block's). On a minitia rollup, opchild writes the L1 price it is
// relayed with the L1's timestamp and the rollup's own height, and skips an update whose L1
// timestamp is not newer than the stored one (OPinit x/opchild/keeper/oracle.go,
// processBatchedOraclePriceUpdate). The devnet relays each L1 block's prices into the
// rollup's next block, so rollup block r holds the L1 quote of height r-1, written at
// rollup height w+1 for an L1 write at height w.
package oracle

import (
	"fmt"
	"math/big"
	"sort"
	"strings"
	"sync"
	"time"
)

// Pair is one currency pair the oracle quotes.
type Pair struct {
	Base, Quote string
	// Decimals scale the integer price: Reference 60000000 at 8 decimals is 0.6.
	Decimals uint64
	// Reference is the price the quotes move around, in units of 10^-Decimals.
	Reference int64
	// Swing is the most one block's price strays from Reference, in parts per million.
	Swing int64
}

// Name is the pair as Connect prints it ("INIT/USD").
func (p Pair) Name() string { return p.Base + "/" + p.Quote }

// DefaultPairs are the pairs of the devnet's registry symbols (INIT, USDC, USDT, ATOM, ETH)
// plus BTC, which no devnet chain carries (a real oracle quotes more than a chain holds).
// MIN and GAS, the rollups' own gas tokens, have no pair on purpose: no market quotes them,
// so a client must show no dollar value for them. The decimals differ per pair, as
// Connect's market map gives them, so a client that assumes one scale shows a wrong price.
func DefaultPairs() []Pair {
	return []Pair{
		{Base: "INIT", Quote: "USD", Decimals: 8, Reference: 60_000_000, Swing: 20_000},    // 0.60
		{Base: "USDC", Quote: "USD", Decimals: 9, Reference: 1_000_000_000, Swing: 500},    // 1.00
		{Base: "USDT", Quote: "USD", Decimals: 9, Reference: 999_800_000, Swing: 500},      // 0.9998
		{Base: "ATOM", Quote: "USD", Decimals: 9, Reference: 5_000_000_000, Swing: 20_000}, // 5.00
		{Base: "ETH", Quote: "USD", Decimals: 6, Reference: 3_500_000_000, Swing: 15_000},  // 3500
		{Base: "BTC", Quote: "USD", Decimals: 5, Reference: 9_500_000_000, Swing: 10_000},  // 95000
	}
}

// Quote is a pair's stored price as of one height.
type Quote struct {
	Pair     string
	ID       uint64 // the pair's Connect id (its place in the sorted pair list)
	Decimals uint64
	// Nonce counts the pair's price updates up to this height.
	Nonce uint64
	// Price is nil when no update has been written yet.
	Price *big.Int
	// BlockHeight is the height of the chain serving the quote at which it was written;
	// BlockTime is the L1 block time of the price (the L1's own on the L1, relayed on a
	// rollup).
	BlockHeight int64
	BlockTime   time.Time
}

// span is a run of L1 heights [from, to] in which a frozen pair got no update; to is 0
// while the pair is still frozen.
type span struct{ from, to int64 }

// Book is the L1 oracle every chain of a network reads: the pairs, the price function and
// the frozen spans. It is safe for concurrent use.
type Book struct {
	seed     uint64
	genesis  time.Time
	interval time.Duration
	pairs    []Pair // sorted by name: Connect's store order, so the ids
	byName   map[string]int

	mu     sync.RWMutex
	frozen map[string][]span
}

// NewBook is the oracle of a network whose chains start at genesis and make a block every
// interval (the engine's block time is genesis + (h-1)·interval).
func NewBook(seed uint64, genesis time.Time, interval time.Duration, pairs []Pair) (*Book, error) {
	b := &Book{seed: seed, genesis: genesis, interval: interval, byName: map[string]int{}, frozen: map[string][]span{}}
	b.pairs = append([]Pair(nil), pairs...)
	sort.Slice(b.pairs, func(i, j int) bool { return b.pairs[i].Name() < b.pairs[j].Name() })
	for i, p := range b.pairs {
		if p.Base == "" || p.Quote == "" || strings.ToUpper(p.Name()) != p.Name() || p.Reference <= 0 || p.Swing < 0 || p.Swing >= 1_000_000 {
			return nil, fmt.Errorf("oracle pair %q: want upper-case base and quote, a positive reference and a swing below 1e6", p.Name())
		}
		if _, dup := b.byName[p.Name()]; dup {
			return nil, fmt.Errorf("oracle pair %q listed twice", p.Name())
		}
		b.byName[p.Name()] = i
	}
	return b, nil
}

// Pairs lists the pairs in id order.
func (b *Book) Pairs() []Pair { return append([]Pair(nil), b.pairs...) }

// Lookup finds a pair by name, case-insensitively as Connect's CurrencyPairFromString
// upper-cases it; ok is false for a pair the oracle does not track.
func (b *Book) Lookup(name string) (Pair, uint64, bool) {
	i, ok := b.byName[strings.ToUpper(name)]
	if !ok {
		return Pair{}, 0, false
	}
	return b.pairs[i], uint64(i), true
}

// BlockTime is the engine's time of L1 block h.
func (b *Book) BlockTime(h int64) time.Time {
	return b.genesis.Add(time.Duration(h-1) * b.interval)
}

// PriceAt is the price the L1 writes for a pair in block h (before any freezing): the
// reference moved by a seeded offset within ±Swing ppm, in exact integer arithmetic. The
// offset is value noise, a sum of seeded random values linearly interpolated over spans of
// 8 to 256 blocks, plus a little per-block jitter, so a price drifts over minutes and
// wiggles block to block rather than jumping by its whole swing every block. It is a pure
// function of the seed, the pair and h: any height's price is computed, never stored.
func (b *Book) PriceAt(p Pair, id uint64, h int64) *big.Int {
	salt := b.seed ^ mix(id+1)
	// unit is a seeded value in [-unitScale, unitScale] for knot k of octave o.
	unit := func(o, k uint64) int64 {
		return int64(mix(salt^mix(o<<56|k))%(2*unitScale+1)) - unitScale
	}
	hh := uint64(max(h, 0))
	var acc int64 // in units of unitScale·octaveWeight
	for o := uint64(3); o <= 8; o++ {
		span := uint64(1) << o
		k, frac := hh>>o, int64(hh&(span-1))
		a, c := unit(o, k), unit(o, k+1)
		acc += (a*(int64(span)-frac) + c*frac) / int64(span) * octaveWeight
	}
	acc += unit(0, hh) * jitterWeight
	// acc lies within ±unitScale·(6·octaveWeight + jitterWeight) = ±unitScale·weights.
	ppm := acc * p.Swing / (unitScale * weights)
	v := new(big.Int).Mul(big.NewInt(p.Reference), big.NewInt(1_000_000+ppm))
	return v.Quo(v, big.NewInt(1_000_000))
}

// The value noise's scale and weights: six octaves of weight 15 and jitter of weight 10.
const (
	unitScale    = 1 << 20
	octaveWeight = 15
	jitterWeight = 10
	weights      = 6*octaveWeight + jitterWeight
)

// mix is SplitMix64's finaliser: a well-spread 64-bit hash of x.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// L1Quote is the L1's stored quote of a pair as of L1 height h: the price of the last block
// at or below h that updated it. ok is false for an unknown pair; a height below 1 (or one
// inside a freeze that began at genesis) has no price yet.
func (b *Book) L1Quote(name string, h int64) (Quote, bool) {
	p, id, ok := b.Lookup(name)
	if !ok {
		return Quote{}, false
	}
	q := Quote{Pair: p.Name(), ID: id, Decimals: p.Decimals}
	b.mu.RLock()
	spans := append([]span(nil), b.frozen[p.Name()]...) // Thaw edits the last span in place
	b.mu.RUnlock()
	w := h
	for i := len(spans) - 1; i >= 0; i-- { // ascending and disjoint: walk down past each
		if s := spans[i]; w >= s.from && (s.to == 0 || w <= s.to) {
			w = s.from - 1
		}
	}
	if w < 1 {
		return q, true
	}
	q.Nonce = uint64(w - skippedBelow(spans, w))
	q.Price = b.PriceAt(p, id, w)
	q.BlockHeight, q.BlockTime = w, b.BlockTime(w)
	return q, true
}

// skippedBelow counts the frozen heights at or below w.
func skippedBelow(spans []span, w int64) int64 {
	var n int64
	for _, s := range spans {
		to := s.to
		if to == 0 || to > w {
			to = w
		}
		if to >= s.from {
			n += to - s.from + 1
		}
	}
	return n
}

// Freeze stops a pair's updates from L1 height after+1 on (the oracle goes stale); it is a
// no-op for a pair already frozen.
func (b *Book) Freeze(name string, after int64) error {
	p, _, ok := b.Lookup(name)
	if !ok {
		return fmt.Errorf("oracle: no pair %q", name)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	spans := b.frozen[p.Name()]
	if n := len(spans); n > 0 && spans[n-1].to == 0 {
		return nil
	}
	b.frozen[p.Name()] = append(spans, span{from: after + 1})
	return nil
}

// Thaw lets a frozen pair update again from L1 height at+1 on; a no-op for a pair that is
// not frozen.
func (b *Book) Thaw(name string, at int64) error {
	p, _, ok := b.Lookup(name)
	if !ok {
		return fmt.Errorf("oracle: no pair %q", name)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	spans := b.frozen[p.Name()]
	n := len(spans)
	if n == 0 || spans[n-1].to != 0 {
		return nil
	}
	if at < spans[n-1].from {
		b.frozen[p.Name()] = spans[:n-1] // thawed before any block was skipped
		return nil
	}
	spans[n-1].to = at
	return nil
}
