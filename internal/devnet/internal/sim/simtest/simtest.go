// Package simtest is the devnet's one fake engine, for tests of the modules that run on the
// real one: a sorted KV, a balance book, and Chain, a fake sim.Env that keeps one snapshot of
// its state per committed height so REST routes can be queried at any height. Chain offers
// every extra of sim (the quiet bank, SetMsgResponse, ...), so a module sees it as it sees the
// real engine; booted with modules (Boot) it also runs their transactions and produces blocks,
// which the bridge tests' chains do.
package simtest

import (
	"fmt"
	"maps"
	"math/big"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// KV is an in-memory sim.KV: a map whose Iterate visits keys in ascending order.
type KV map[string][]byte

var _ sim.KV = KV{}

// Get implements sim.KVReader.
func (m KV) Get(k string) ([]byte, bool) { v, ok := m[k]; return v, ok }

// Set implements sim.KV; it stores a copy of v.
func (m KV) Set(k string, v []byte) { m[k] = append([]byte(nil), v...) }

// Delete implements sim.KV.
func (m KV) Delete(k string) { delete(m, k) }

// Iterate implements sim.KVReader. The keys are listed before the first visit, so fn may
// write to the store.
func (m KV) Iterate(prefix string, fn func(string, []byte) bool) {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if strings.HasPrefix(k, prefix) && !fn(k, m[k]) {
			return
		}
	}
}

// Clone is a shallow copy (values are never written in place).
func (m KV) Clone() KV { return maps.Clone(m) }

// BalKey is one account's balance of one denom.
type BalKey struct {
	Addr  string // raw address bytes
	Denom string
}

// Balances is a balance book.
type Balances map[BalKey]*big.Int

// Get returns a copy of a balance (zero when absent).
func (b Balances) Get(addr []byte, denom string) *big.Int {
	if v, ok := b[BalKey{string(addr), denom}]; ok {
		return new(big.Int).Set(v)
	}
	return new(big.Int)
}

// Set replaces a balance.
func (b Balances) Set(addr []byte, denom string, v *big.Int) {
	b[BalKey{string(addr), denom}] = new(big.Int).Set(v)
}

// Credit adds c to addr.
func (b Balances) Credit(addr []byte, c sim.Coin) {
	v := b.Get(addr, c.Denom)
	b[BalKey{string(addr), c.Denom}] = v.Add(v, c.Amount)
}

// Debit takes c from addr; it leaves the balance alone and reports false when it is short.
func (b Balances) Debit(addr []byte, c sim.Coin) bool {
	v := b.Get(addr, c.Denom)
	if v.Cmp(c.Amount) < 0 {
		return false
	}
	b[BalKey{string(addr), c.Denom}] = v.Sub(v, c.Amount)
	return true
}

// Supply sums every balance of a denom.
func (b Balances) Supply(denom string) *big.Int {
	sum := new(big.Int)
	for k, v := range b {
		if k.Denom == denom {
			sum.Add(sum, v)
		}
	}
	return sum
}

// Clone is a deep copy.
func (b Balances) Clone() Balances {
	out := make(Balances, len(b))
	for k, v := range b {
		out[k] = new(big.Int).Set(v)
	}
	return out
}

// Chain is the devnet's fake engine for module tests: one sim.Env holding a KV per module,
// balances, the events emitted since the test last cleared them, and a snapshot per committed
// height. Tests drive it directly (set BlockHeight/Now, call handlers with it as the Env, clear
// Events between messages, Commit after each block), or let it run modules' transactions
// and produce blocks (Boot, Submit, Exec, ProduceBlock in blocks.go).
type Chain struct {
	ID, Prefix  string
	BlockHeight int64
	Now         time.Time
	Hash        []byte // TxHash
	Stores      map[string]KV
	Bal         Balances
	Events      []sim.Event
	// Flavor, when set, renders the events of Send, Mint and Burn (the quiet variants and
	// AdjustBalance stay silent).
	Flavor   sim.BankFlavor
	Gas      uint64
	Response proto.Message // the last SetMsgResponse
	// TxIdx, SeqFlag and Fee are what TxIndex, SequenceIncremented and FeeDenom answer.
	TxIdx   uint32
	SeqFlag *bool
	Fee     string
	History map[int64]map[string]KV
	BalHist map[int64]Balances

	blocks
}

// Chain offers every extra of sim, so any module runs on it.
var _ sim.Host = (*Chain)(nil)

// NewChain returns an empty chain at height 1 (genesis).
func NewChain(id, prefix string) *Chain {
	return &Chain{ID: id, Prefix: prefix, BlockHeight: 1, Stores: map[string]KV{}, Bal: Balances{},
		History: map[int64]map[string]KV{}, BalHist: map[int64]Balances{}}
}

func (f *Chain) ChainID() string                     { return f.ID }
func (f *Chain) Height() int64                       { return f.BlockHeight }
func (f *Chain) Time() time.Time                     { return f.Now }
func (f *Chain) TxHash() []byte                      { return f.Hash }
func (f *Chain) AddressPrefix() string               { return f.Prefix }
func (f *Chain) Emit(ev sim.Event)                   { f.Events = append(f.Events, ev) }
func (f *Chain) ConsumeGas(g uint64)                 { f.Gas += g }
func (f *Chain) SetMsgResponse(m proto.Message)      { f.Response = m }
func (f *Chain) Balance(a []byte, d string) *big.Int { return f.Bal.Get(a, d) }
func (f *Chain) TxIndex() uint32                     { return f.TxIdx }
func (f *Chain) SequenceIncremented() *bool          { return f.SeqFlag }
func (f *Chain) FeeDenom() string                    { return f.Fee }

// EnsureAccount implements sim.AccountCreator; the fake keeps no auth accounts.
func (f *Chain) EnsureAccount([]byte) {}

// Store returns a module's KV. It looks the module's map up on every call, so a store taken
// before a Restore sees the restored state.
func (f *Chain) Store(module string) sim.KV { return storeRef{stores: &f.Stores, module: module} }

// KV is a module's map itself (created empty when missing), for tests that read it directly.
func (f *Chain) KV(module string) KV { return storeRef{stores: &f.Stores, module: module}.m() }

type storeRef struct {
	stores *map[string]KV
	module string
}

func (s storeRef) m() KV {
	m, ok := (*s.stores)[s.module]
	if !ok {
		m = KV{}
		(*s.stores)[s.module] = m
	}
	return m
}

func (s storeRef) Get(key string) ([]byte, bool) { return s.m().Get(key) }

// Set keeps an empty value non-nil, as the engine does.
func (s storeRef) Set(key string, value []byte)                        { s.m()[key] = append([]byte{}, value...) }
func (s storeRef) Delete(key string)                                   { s.m().Delete(key) }
func (s storeRef) Iterate(prefix string, fn func(string, []byte) bool) { s.m().Iterate(prefix, fn) }

func insufficient(have *big.Int, c sim.Coin) error {
	return &sim.CodedError{Codespace: "sdk", Code: 5, Log: fmt.Sprintf("spendable balance %s%s is smaller than %s%s: insufficient funds", have, c.Denom, c.Amount, c.Denom)}
}

// SendQuiet moves coins without events. A coin the sender is short of fails the send, with
// the coins before it already moved (the engine's rollback undoes them).
func (f *Chain) SendQuiet(from, to []byte, coins []sim.Coin) error {
	for _, c := range coins {
		if have := f.Bal.Get(from, c.Denom); !f.Bal.Debit(from, c) {
			return insufficient(have, c)
		}
		f.Bal.Credit(to, c)
	}
	return nil
}

// MintQuiet creates coins without events.
func (f *Chain) MintQuiet(to []byte, coins []sim.Coin) error {
	for _, c := range coins {
		f.Bal.Credit(to, c)
	}
	return nil
}

// BurnQuiet destroys coins without events.
func (f *Chain) BurnQuiet(from []byte, coins []sim.Coin) error {
	for _, c := range coins {
		if have := f.Bal.Get(from, c.Denom); !f.Bal.Debit(from, c) {
			return insufficient(have, c)
		}
	}
	return nil
}

// AdjustBalance implements sim.BalanceAdjuster.
func (f *Chain) AdjustBalance(addr []byte, denom string, delta *big.Int) error {
	v := f.Bal.Get(addr, denom)
	if v.Add(v, delta).Sign() < 0 {
		return insufficient(f.Bal.Get(addr, denom), sim.Coin{Denom: denom, Amount: new(big.Int).Neg(delta)})
	}
	f.Bal.Set(addr, denom, v)
	return nil
}

// flavored runs a quiet movement and emits the Flavor's events for it once it succeeded. The
// events are rendered before the movement, as the engine renders them: a flavor may ask
// whether an account already held the denom.
func (f *Chain) flavored(events func(sim.BankFlavor) []sim.Event, move func() error) error {
	var evs []sim.Event
	if f.Flavor != nil {
		evs = events(f.Flavor)
	}
	if err := move(); err != nil {
		return err
	}
	for _, e := range evs {
		f.Emit(e)
	}
	return nil
}

// Send moves the coins and emits the Flavor's send events.
func (f *Chain) Send(from, to []byte, coins []sim.Coin) error {
	return f.flavored(func(b sim.BankFlavor) []sim.Event { return b.SendEvents(f.Prefix, from, to, coins) },
		func() error { return f.SendQuiet(from, to, coins) })
}

// Mint creates the coins and emits the Flavor's mint events.
func (f *Chain) Mint(to []byte, coins []sim.Coin) error {
	return f.flavored(func(b sim.BankFlavor) []sim.Event { return b.MintEvents(f.Prefix, to, coins) },
		func() error { return f.MintQuiet(to, coins) })
}

// Burn destroys the coins and emits the Flavor's burn events.
func (f *Chain) Burn(from []byte, coins []sim.Coin) error {
	return f.flavored(func(b sim.BankFlavor) []sim.Event { return b.BurnEvents(f.Prefix, from, coins) },
		func() error { return f.BurnQuiet(from, coins) })
}

func cloneStores(in map[string]KV) map[string]KV {
	out := make(map[string]KV, len(in))
	for m, kv := range in {
		out[m] = kv.Clone()
	}
	return out
}

// Snapshot copies the state, for Restore after a failed transaction.
func (f *Chain) Snapshot() (map[string]KV, Balances) { return cloneStores(f.Stores), f.Bal.Clone() }

// Restore puts back a Snapshot.
func (f *Chain) Restore(stores map[string]KV, bal Balances) { f.Stores, f.Bal = stores, bal }

// Commit snapshots the state as of the current height and moves to the next one.
func (f *Chain) Commit() {
	f.History[f.BlockHeight] = cloneStores(f.Stores)
	f.BalHist[f.BlockHeight] = f.Bal.Clone()
	f.BlockHeight++
}

// Query is a sim.Query over one snapshot.
type Query struct {
	ID, Prefix string
	H          int64
	Stores     map[string]KV
	Bal        Balances
}

func (q Query) ChainID() string                     { return q.ID }
func (q Query) Height() int64                       { return q.H }
func (q Query) AddressPrefix() string               { return q.Prefix }
func (q Query) Store(m string) sim.KVReader         { return q.Stores[m] }
func (q Query) Balance(a []byte, d string) *big.Int { return q.Bal.Get(a, d) }

// QueryAt is a sim.QueryAt over the committed snapshots: x-cosmos-block-height picks one
// (absent or 0 means the latest), a height above the latest fails as the SDK does, and a
// height before the first snapshot sees an empty state. A nil request is the latest.
func (f *Chain) QueryAt(r *http.Request) (sim.Query, error) {
	latest := f.BlockHeight - 1
	h := latest
	q := Query{ID: f.ID, Prefix: f.Prefix}
	if r == nil {
		q.H, q.Stores, q.Bal = latest, f.History[latest], f.BalHist[latest]
		return q, nil
	}
	if s := r.Header.Get("x-cosmos-block-height"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("bad height %q", s)
		}
		if v > latest {
			return nil, &sim.CodedError{Codespace: "sdk", Code: 26, Log: "invalid height: cannot query with height in the future; please provide a valid height"}
		}
		if v > 0 {
			h = v
		}
	}
	hs := slices.Sorted(maps.Keys(f.History))
	i := sort.Search(len(hs), func(i int) bool { return hs[i] > h }) - 1
	q.H = h
	if i < 0 {
		return q, nil
	}
	q.Stores, q.Bal = f.History[hs[i]], f.BalHist[hs[i]]
	return q, nil
}
