package move

import (
	"math/big"
	"strings"
	"sync"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// storeSet remembers which primary stores exist, for the parts of the simulation that have no
// state access (BankFlavor). It is process memory, so it does not roll back with a failed tx:
// the only effect is a missing PrimaryStoreCreatedEvent pair after such a failure.
type storeSet struct {
	mu     sync.Mutex
	stores map[Addr]bool
	denoms map[Addr]string // metadata object -> bank denom, for coin denoms seen anywhere
}

func newStoreSet() *storeSet {
	return &storeSet{stores: map[Addr]bool{}, denoms: map[Addr]string{}}
}

func (s *storeSet) has(store Addr) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stores[store]
}

func (s *storeSet) add(store Addr) {
	s.mu.Lock()
	s.stores[store] = true
	s.mu.Unlock()
}

func (s *storeSet) noteDenom(denom string) Addr {
	m := CoinMetadata(denom)
	s.mu.Lock()
	if _, ok := s.denoms[m]; !ok {
		s.denoms[m] = denom
	}
	s.mu.Unlock()
	return m
}

func (s *storeSet) denomOf(m Addr) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.denoms[m]
	return d, ok
}

// BankFlavor renders bank movements the way a Move chain (minimove, the Initia L1) does: each
// coin moves through a `0x1::coin::sudo_*` entry function whose `execute` and fungible-asset
// `move` events come before the x/bank events. Get it from Module.BankFlavor (it shares the
// module's record of existing primary stores) or NewBankFlavor for a chain without the module
// (the L1).
type BankFlavor struct {
	set *storeSet
	// StoreExists, when set, is asked too whether owner had a primary store for denom before
	// the movement being rendered. The flavor's own record knows the stores it rendered, the
	// Move handlers created, NoteStore was told about, and the traffic generator's accounts
	// funded at genesis; an engine that funds other accounts without the flavor should call
	// NoteStore for them (or answer here).
	StoreExists func(owner []byte, denom string) bool
}

var _ sim.BankFlavor = (*BankFlavor)(nil)

// NewBankFlavor returns a flavor with its own record of primary stores.
func NewBankFlavor() *BankFlavor { return &BankFlavor{set: newStoreSet()} }

// ForkFlavor implements sim.BankForker: a flavor with a copy of the record of primary
// stores, for a simulated tx.
func (f *BankFlavor) ForkFlavor() sim.BankFlavor {
	f.set.mu.Lock()
	defer f.set.mu.Unlock()
	set := &storeSet{stores: make(map[Addr]bool, len(f.set.stores)), denoms: make(map[Addr]string, len(f.set.denoms))}
	for k, v := range f.set.stores {
		set.stores[k] = v
	}
	for k, v := range f.set.denoms {
		set.denoms[k] = v
	}
	return &BankFlavor{set: set, StoreExists: f.StoreExists}
}

// NoteStore records that owner has a primary store for denom (e.g. genesis balances), so the
// next deposit does not render a store creation.
func (f *BankFlavor) NoteStore(owner []byte, denom string) {
	m := f.set.noteDenom(denom)
	f.set.add(PrimaryStore(AccAddr(owner), m))
}

func (f *BankFlavor) exists(owner []byte, denom string) bool {
	m := CoinMetadata(denom)
	if f.StoreExists != nil {
		return f.StoreExists(owner, denom) || f.set.has(PrimaryStore(AccAddr(owner), m))
	}
	return f.set.has(PrimaryStore(AccAddr(owner), m))
}

// ensureStore returns the store-creation events when owner has no store for denom yet.
func (f *BankFlavor) ensureStore(owner []byte, denom string) []sim.Event {
	m := f.set.noteDenom(denom)
	if f.exists(owner, denom) {
		return nil
	}
	o := AccAddr(owner)
	f.set.add(PrimaryStore(o, m))
	return storeCreatedEvents(o, m)
}

// SendEvents renders a bank send (MsgSend, fee payment, module transfers): per coin a
// `0x1::coin::sudo_transfer` call (execute, store creation on a first deposit, withdraw and
// deposit pairs), then coin_spent, coin_received, transfer and message{sender}.
func (f *BankFlavor) SendEvents(prefix string, from, to []byte, coins []sim.Coin) []sim.Event {
	var evs []sim.Event
	fa, ta := AccAddr(from), AccAddr(to)
	for _, c := range coins {
		m := f.set.noteDenom(c.Denom)
		evs = append(evs, executeEvent("0x1,"+fa.String(), "coin", "sudo_transfer"))
		evs = append(evs, f.ensureStore(to, c.Denom)...)
		amt := c.Amount.String()
		evs = append(evs, withdrawEvents(fa, m, amt)...)
		evs = append(evs, depositEvents(ta, m, amt)...)
	}
	fb, tb := bech(prefix, from), bech(prefix, to)
	amount := CoinsString(coins)
	return append(evs,
		plainEvent("coin_spent", "spender", fb, "amount", amount),
		plainEvent("coin_received", "receiver", tb, "amount", amount),
		plainEvent("transfer", "recipient", tb, "sender", fb, "amount", amount),
		plainEvent("message", "sender", fb),
	)
}

// MintEvents renders a bank mint to `to` (a module account in x/bank): per coin a
// `0x1::managed_coin::sudo_mint` call with the fungible-asset MintEvent and the deposit pair,
// then coin_received and coinbase. No fixture shows a Move-chain mint; the shape follows the
// x/bank order seen on miniwasm with the Move events first, as for sends.
func (f *BankFlavor) MintEvents(prefix string, to []byte, coins []sim.Coin) []sim.Event {
	var evs []sim.Event
	ta := AccAddr(to)
	for _, c := range coins {
		m := f.set.noteDenom(c.Denom)
		amt := c.Amount.String()
		evs = append(evs, executeEvent("0x1", "managed_coin", "sudo_mint"))
		evs = append(evs, moveEvent(tagFAMint, kv{"metadata_addr", m.String()}, kv{"amount", amt}))
		evs = append(evs, f.ensureStore(to, c.Denom)...)
		evs = append(evs, depositEvents(ta, m, amt)...)
	}
	tb := bech(prefix, to)
	amount := CoinsString(coins)
	return append(evs,
		plainEvent("coin_received", "receiver", tb, "amount", amount),
		plainEvent("coinbase", "minter", tb, "amount", amount),
	)
}

// BurnEvents renders a bank burn from `from`: per coin a `0x1::managed_coin::sudo_burn` call
// (withdraw pair, fungible-asset BurnEvent), then coin_spent and burn. Unverified against a
// capture, like MintEvents.
func (f *BankFlavor) BurnEvents(prefix string, from []byte, coins []sim.Coin) []sim.Event {
	var evs []sim.Event
	fa := AccAddr(from)
	for _, c := range coins {
		m := f.set.noteDenom(c.Denom)
		amt := c.Amount.String()
		evs = append(evs, executeEvent("0x1", "managed_coin", "sudo_burn"))
		evs = append(evs, withdrawEvents(fa, m, amt)...)
		evs = append(evs, moveEvent(tagFABurn, kv{"metadata_addr", m.String()}, kv{"amount", amt}))
	}
	fb := bech(prefix, from)
	amount := CoinsString(coins)
	return append(evs,
		plainEvent("coin_spent", "spender", fb, "amount", amount),
		plainEvent("burn", "burner", fb, "amount", amount),
	)
}

// CoinsString renders coins as the SDK prints sdk.Coins: `<amount><denom>` joined by commas,
// in the order given (callers pass them sorted by denom, as the SDK keeps them).
func CoinsString(coins []sim.Coin) string {
	parts := make([]string, 0, len(coins))
	for _, c := range coins {
		amt := c.Amount
		if amt == nil {
			amt = new(big.Int)
		}
		parts = append(parts, amt.String()+c.Denom)
	}
	return strings.Join(parts, ",")
}

func bech(prefix string, b []byte) string {
	s, err := address.Bech32(prefix, b)
	if err != nil {
		return ""
	}
	return s
}
