// Package branch gives the bridge modules the "cache context" the real chains run
// application callbacks in: a sim.Env overlay whose KV writes, coin movements and events
// are recorded and only reach the parent Env on Commit. ICS-20 receive callbacks, packet
// forwarding and deposit hooks need it because a failure after tokens moved must leave
// no trace except the (renamed) events, and sim.Env itself has no branching.
package branch

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"sort"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

type opKind int

const (
	opEmit opKind = iota
	opSend
	opMint
	opBurn
	opSendQuiet
	opMintQuiet
	opBurnQuiet
	opAdjust
	opEnsure
)

// op is one recorded action, replayed in order on commit so the parent Env emits its
// bank events interleaved with ours exactly as they happened.
type op struct {
	kind     opKind
	ev       sim.Event
	from, to []byte
	coins    []sim.Coin
	denom    string
	delta    *big.Int
}

// Env is a branched sim.Env. It is not safe for concurrent use (neither is a tx).
type Env struct {
	parent sim.Host
	ops    []op
	stores map[string]*store
	order  []string // store names in creation order, for a deterministic commit
	deltas map[string]*big.Int
	// seqFlag, when set, replaces the parent's minievm sequence flag (a deposit hook runs
	// its own ante chain, which sets a fresh one).
	seqFlag *bool
}

// Env is a sim.Host, so VM messages run inside it as on the engine; it records what the
// extras move and replays it like everything else.
var _ sim.Host = (*Env)(nil)

// SequenceIncremented is the minievm sequence flag the branch's messages see: its own once
// SetSequenceIncremented ran, else the parent's.
func (e *Env) SequenceIncremented() *bool {
	if e.seqFlag != nil {
		return e.seqFlag
	}
	return e.parent.SequenceIncremented()
}

// SetSequenceIncremented gives the branch its own sequence flag.
func (e *Env) SetSequenceIncremented(f *bool) { e.seqFlag = f }

// New branches parent; it fails for an Env that is no sim.Host (one a module needing
// sim.HostExtras would have refused at wiring).
func New(parent sim.Env) (*Env, error) {
	p, err := sim.As[sim.Host](parent)
	if err != nil {
		return nil, err
	}
	return &Env{parent: p, stores: map[string]*store{}, deltas: map[string]*big.Int{}}, nil
}

func (e *Env) ChainID() string          { return e.parent.ChainID() }
func (e *Env) Height() int64            { return e.parent.Height() }
func (e *Env) Time() time.Time          { return e.parent.Time() }
func (e *Env) TxHash() []byte           { return e.parent.TxHash() }
func (e *Env) AddressPrefix() string    { return e.parent.AddressPrefix() }
func (e *Env) ConsumeGas(amount uint64) { e.parent.ConsumeGas(amount) }

// Emit records an event.
func (e *Env) Emit(ev sim.Event) { e.ops = append(e.ops, op{kind: opEmit, ev: ev}) }

// Events returns the events emitted directly on this branch (not the parent's bank events).
func (e *Env) Events() []sim.Event {
	var out []sim.Event
	for _, o := range e.ops {
		if o.kind == opEmit {
			out = append(out, o.ev)
		}
	}
	return out
}

func deltaKey(addr []byte, denom string) string { return hex.EncodeToString(addr) + "|" + denom }

// Balance is the parent's balance plus the movements recorded on the branch.
func (e *Env) Balance(addr []byte, denom string) *big.Int {
	b := new(big.Int).Set(e.parent.Balance(addr, denom))
	if d, ok := e.deltas[deltaKey(addr, denom)]; ok {
		b.Add(b, d)
	}
	return b
}

func (e *Env) add(addr []byte, c sim.Coin, sign int) {
	k := deltaKey(addr, c.Denom)
	d, ok := e.deltas[k]
	if !ok {
		d = new(big.Int)
		e.deltas[k] = d
	}
	if sign < 0 {
		d.Sub(d, c.Amount)
	} else {
		d.Add(d, c.Amount)
	}
}

func (e *Env) check(addr []byte, coins []sim.Coin) error {
	for _, c := range coins {
		if c.Amount.Sign() < 0 {
			return &sim.CodedError{Codespace: "sdk", Code: 10, Log: "negative coin amount: " + c.Amount.String() + c.Denom}
		}
		if e.Balance(addr, c.Denom).Cmp(c.Amount) < 0 {
			return &sim.CodedError{Codespace: "sdk", Code: 5, Log: e.Balance(addr, c.Denom).String() + c.Denom + " is smaller than " + c.Amount.String() + c.Denom + ": insufficient funds"}
		}
	}
	return nil
}

func copyCoins(coins []sim.Coin) []sim.Coin {
	out := make([]sim.Coin, len(coins))
	for i, c := range coins {
		out[i] = sim.Coin{Denom: c.Denom, Amount: new(big.Int).Set(c.Amount)}
	}
	return out
}

// record applies a coin movement to the branched balances and records it for replay on
// commit: from (when set) must hold the coins and loses them, to (when set) gains them.
func (e *Env) record(kind opKind, from, to []byte, coins []sim.Coin) error {
	if from != nil {
		if err := e.check(from, coins); err != nil {
			return err
		}
	}
	coins = copyCoins(coins)
	for _, c := range coins {
		if from != nil {
			e.add(from, c, -1)
		}
		if to != nil {
			e.add(to, c, 1)
		}
	}
	e.ops = append(e.ops, op{kind: kind, from: from, to: to, coins: coins})
	return nil
}

// Send records a transfer after checking the sender's (branched) balance.
func (e *Env) Send(from, to []byte, coins []sim.Coin) error { return e.record(opSend, from, to, coins) }

// Mint records a mint.
func (e *Env) Mint(to []byte, coins []sim.Coin) error { return e.record(opMint, nil, to, coins) }

// Burn records a burn after checking the balance.
func (e *Env) Burn(from []byte, coins []sim.Coin) error { return e.record(opBurn, from, nil, coins) }

// SendQuiet is Send without bank events (VMs that render the movement themselves).
func (e *Env) SendQuiet(from, to []byte, coins []sim.Coin) error {
	return e.record(opSendQuiet, from, to, coins)
}

// MintQuiet is Mint without bank events.
func (e *Env) MintQuiet(to []byte, coins []sim.Coin) error {
	return e.record(opMintQuiet, nil, to, coins)
}

// BurnQuiet is Burn without bank events.
func (e *Env) BurnQuiet(from []byte, coins []sim.Coin) error {
	return e.record(opBurnQuiet, from, nil, coins)
}

// AdjustBalance changes a balance without bank events.
func (e *Env) AdjustBalance(addr []byte, denom string, delta *big.Int) error {
	if nb := new(big.Int).Add(e.Balance(addr, denom), delta); nb.Sign() < 0 {
		return &sim.CodedError{Codespace: "sdk", Code: 5, Log: fmt.Sprintf("spendable balance %s%s is smaller than %s%s: insufficient funds",
			e.Balance(addr, denom), denom, new(big.Int).Neg(delta), denom)}
	}
	d := new(big.Int).Set(delta)
	e.add(addr, sim.Coin{Denom: denom, Amount: d}, 1)
	e.ops = append(e.ops, op{kind: opAdjust, to: addr, denom: denom, delta: d})
	return nil
}

// EnsureAccount records an account creation.
func (e *Env) EnsureAccount(addr []byte) {
	e.ops = append(e.ops, op{kind: opEnsure, to: append([]byte(nil), addr...)})
}

// FeeDenom forwards to the parent.
func (e *Env) FeeDenom() string { return e.parent.FeeDenom() }

// Simulating implements sim.Simulation: a branch of a simulated tx is simulated too.
func (e *Env) Simulating() bool { return sim.Simulating(e.parent) }

// TxIndex forwards to the parent.
func (e *Env) TxIndex() uint32 {
	return e.parent.TxIndex()
}

// SetMsgResponse drops the response: messages run inside a branch (hooks) do not set the
// transaction's result data.
func (e *Env) SetMsgResponse(proto.Message) {}

// Store returns the branched KV of module.
func (e *Env) Store(module string) sim.KV {
	s, ok := e.stores[module]
	if !ok {
		s = &store{parent: e.parent.Store(module), writes: map[string][]byte{}}
		e.stores[module] = s
		e.order = append(e.order, module)
	}
	return s
}

// Commit replays everything on the parent. An error means the parent refused a coin
// movement the branch accepted, which only happens if the parent's accounting differs.
func (e *Env) Commit() error {
	for _, name := range e.order {
		s := e.stores[name]
		keys := make([]string, 0, len(s.writes))
		for k := range s.writes {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if v := s.writes[k]; v == nil {
				s.parent.Delete(k)
			} else {
				s.parent.Set(k, v)
			}
		}
	}
	for _, o := range e.ops {
		var err error
		switch o.kind {
		case opEmit:
			e.parent.Emit(o.ev)
		case opSend:
			err = e.parent.Send(o.from, o.to, o.coins)
		case opMint:
			err = e.parent.Mint(o.to, o.coins)
		case opBurn:
			err = e.parent.Burn(o.from, o.coins)
		case opSendQuiet, opMintQuiet, opBurnQuiet:
			switch o.kind {
			case opSendQuiet:
				err = e.parent.SendQuiet(o.from, o.to, o.coins)
			case opMintQuiet:
				err = e.parent.MintQuiet(o.to, o.coins)
			default:
				err = e.parent.BurnQuiet(o.from, o.coins)
			}
		case opAdjust:
			err = e.parent.AdjustBalance(o.to, o.denom, o.delta)
		case opEnsure:
			e.parent.EnsureAccount(o.to)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// DiscardRenamed drops the branch's state and re-emits its own events on the parent with
// type and keys prefixed, as ibc-go does for callbacks that return an error
// acknowledgement ("ibccallbackerror-"). Bank events of discarded movements are not
// re-emitted: the parent renders them and they never reached it.
func (e *Env) DiscardRenamed(prefix string) {
	for _, ev := range e.Events() {
		out := sim.Event{Type: prefix + ev.Type}
		for _, a := range ev.Attributes {
			out.Attributes = append(out.Attributes, sim.Attribute{Key: prefix + a.Key, Value: a.Value, Index: a.Index})
		}
		e.parent.Emit(out)
	}
}

// store is a write-buffered KV over the parent's. A nil value marks a deletion.
type store struct {
	parent sim.KV
	writes map[string][]byte
}

func (s *store) Get(key string) ([]byte, bool) {
	if v, ok := s.writes[key]; ok {
		return v, v != nil
	}
	return s.parent.Get(key)
}

func (s *store) Set(key string, value []byte) {
	v := make([]byte, len(value))
	copy(v, value)
	s.writes[key] = v
}

func (s *store) Delete(key string) { s.writes[key] = nil }

func (s *store) Iterate(prefix string, fn func(key string, value []byte) bool) {
	merged := map[string][]byte{}
	s.parent.Iterate(prefix, func(k string, v []byte) bool {
		merged[k] = v
		return true
	})
	for k, v := range s.writes {
		if len(k) >= len(prefix) && k[:len(prefix)] == prefix {
			if v == nil {
				delete(merged, k)
			} else {
				merged[k] = v
			}
		}
	}
	keys := make([]string, 0, len(merged))
	for k := range merged {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !fn(k, merged[k]) {
			return
		}
	}
}
