// Package simtest is a small in-memory stand-in for the devnet engine, used by the bridge
// packages' tests: chains that run sim.Modules, execute transactions with the baseapp
// event conventions (message event first, msg_index on every event, rollback on failure),
// render bank events the way a plain Cosmos SDK chain does, and produce blocks. Its state is
// kept in the devnet-wide test doubles of internal/devnet/internal/sim/simtest.
package simtest

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
	simfake "github.com/rollgate/rollgate/internal/devnet/internal/sim/simtest"
)

// TxResult is one executed transaction.
type TxResult struct {
	Height int64
	Hash   []byte
	Signer string
	Msgs   []proto.Message
	Code   uint32
	Log    string
	Events []sim.Event
}

// Block is one produced block.
type Block struct {
	Height int64
	Time   time.Time
	Txs    []TxResult
}

type pendingTx struct {
	signer string
	msgs   []proto.Message
}

// Chain is one simulated chain.
type Chain struct {
	ID       string
	Prefix   string
	Modules  []sim.Module
	handlers map[string]sim.Handler

	height   int64
	now      time.Time
	kv       map[string]simfake.KV // per module
	balances simfake.Balances
	mempool  []pendingTx
	Blocks   []Block
	txCount  int
	// Accounts get the modules' traffic intents when TrafficOn is set.
	Accounts  []sim.Account
	TrafficOn bool
	Seed      uint64
}

// NewChain builds a chain at height 1 (genesis) with the modules' genesis applied.
func NewChain(id, prefix string, start time.Time, modules ...sim.Module) (*Chain, error) {
	c := &Chain{ID: id, Prefix: prefix, Modules: modules, handlers: map[string]sim.Handler{},
		height: 1, now: start, kv: map[string]simfake.KV{}, balances: simfake.Balances{}}
	if err := sim.CheckNeeds(c.newEnv(nil), modules...); err != nil {
		return nil, err
	}
	for _, m := range modules {
		for url, h := range m.Handlers() {
			c.handlers[url] = h
		}
		env := c.newEnv(nil)
		if err := m.InitGenesis(env); err != nil {
			return nil, fmt.Errorf("%s genesis: %w", m.Name(), err)
		}
	}
	c.Blocks = append(c.Blocks, Block{Height: 1, Time: start})
	return c, nil
}

// Height is the last produced height.
func (c *Chain) Height() int64 { return c.height }

// Time is the last block's time.
func (c *Chain) Time() time.Time { return c.now }

// Fund credits coins without events (genesis balances).
func (c *Chain) Fund(addr []byte, denom string, amount int64) {
	c.balances.Credit(addr, sim.Coin{Denom: denom, Amount: big.NewInt(amount)})
}

// Balance reads a balance.
func (c *Chain) Balance(addr []byte, denom string) *big.Int { return c.balances.Get(addr, denom) }

// Submit queues a tx for the next block.
func (c *Chain) Submit(signer string, msgs ...proto.Message) {
	c.mempool = append(c.mempool, pendingTx{signer: signer, msgs: msgs})
}

// ProduceBlock executes the mempool in a new block (block time advances by step).
func (c *Chain) ProduceBlock(step time.Duration) Block {
	c.height++
	c.now = c.now.Add(step)
	b := Block{Height: c.height, Time: c.now}
	pool := c.mempool
	c.mempool = nil
	if c.TrafficOn {
		for mi, m := range c.Modules {
			rng := rand.New(rand.NewPCG(c.Seed, uint64(c.height)<<8|uint64(mi)))
			for _, in := range m.Traffic(rng, c.Query(), c.Accounts) {
				pool = append(pool, pendingTx{signer: c.Accounts[in.Signer].Bech32, msgs: in.Msgs})
			}
		}
	}
	for _, p := range pool {
		b.Txs = append(b.Txs, c.exec(p))
	}
	c.Blocks = append(c.Blocks, b)
	return b
}

// Exec runs one tx immediately in the block being built (height+1 semantics are not
// needed by handler tests, so it runs at the current height) and returns its result.
func (c *Chain) Exec(signer string, msgs ...proto.Message) TxResult {
	return c.exec(pendingTx{signer: signer, msgs: msgs})
}

// Supply sums every balance of a denom.
func (c *Chain) Supply(denom string) *big.Int { return c.balances.Supply(denom) }

// Block returns the block at height h.
func (c *Chain) Block(h int64) (Block, bool) {
	for _, b := range c.Blocks {
		if b.Height == h {
			return b, true
		}
	}
	return Block{}, false
}

func (c *Chain) exec(p pendingTx) TxResult {
	c.txCount++
	hash := sha256.Sum256([]byte(fmt.Sprintf("%s/%d/%d", c.ID, c.height, c.txCount)))
	res := TxResult{Height: c.height, Hash: hash[:], Signer: p.signer, Msgs: p.msgs}
	kvSnap := cloneKV(c.kv)
	balSnap := c.balances.Clone()
	env := c.newEnv(hash[:])
	for i, m := range p.msgs {
		url := "/" + string(proto.MessageName(m))
		h, ok := c.handlers[url]
		start := len(env.events)
		env.Emit(sim.Event{Type: "message", Attributes: []sim.Attribute{
			{Key: "action", Value: url, Index: true}, {Key: "sender", Value: p.signer, Index: true}}})
		var err error
		if !ok {
			err = &sim.CodedError{Codespace: "sdk", Code: 12, Log: "unknown message type " + url}
		} else {
			err = h(env, m)
		}
		if err != nil {
			c.kv, c.balances = kvSnap, balSnap
			res.Code = 1
			res.Log = err.Error()
			var ce *sim.CodedError
			if errors.As(err, &ce) {
				res.Code = ce.Code
			}
			res.Events = nil
			return res
		}
		// baseapp adds module to its message event only if no event of the message has one
		hasModule := false
		for _, ev := range env.events[start+1:] {
			for _, a := range ev.Attributes {
				if a.Key == "module" {
					hasModule = true
				}
			}
		}
		if !hasModule {
			parts := strings.Split(strings.TrimPrefix(url, "/"), ".")
			if len(parts) > 1 {
				env.events[start].Attributes = append(env.events[start].Attributes, sim.Attribute{Key: "module", Value: parts[1], Index: true})
			}
		}
		for j := start; j < len(env.events); j++ {
			env.events[j].Attributes = append(env.events[j].Attributes, sim.Attribute{Key: "msg_index", Value: strconv.Itoa(i), Index: true})
		}
	}
	res.Events = env.events
	return res
}

func cloneKV(in map[string]simfake.KV) map[string]simfake.KV {
	out := make(map[string]simfake.KV, len(in))
	for m, kv := range in {
		out[m] = kv.Clone()
	}
	return out
}

// Env is the per-tx execution environment.
type Env struct {
	c      *Chain
	hash   []byte
	events []sim.Event
	gas    uint64
}

func (c *Chain) newEnv(hash []byte) *Env { return &Env{c: c, hash: hash} }

// NewEnv returns an Env for direct handler tests (events accumulate in Events()).
func (c *Chain) NewEnv() *Env { return c.newEnv(make([]byte, 32)) }

// Events returns what was emitted so far.
func (e *Env) Events() []sim.Event { return e.events }

func (e *Env) ChainID() string          { return e.c.ID }
func (e *Env) Height() int64            { return e.c.height }
func (e *Env) Time() time.Time          { return e.c.now }
func (e *Env) TxHash() []byte           { return e.hash }
func (e *Env) AddressPrefix() string    { return e.c.Prefix }
func (e *Env) Emit(ev sim.Event)        { e.events = append(e.events, ev) }
func (e *Env) ConsumeGas(amount uint64) { e.gas += amount }

// SetMsgResponse implements sim.Responder; the fake's results carry no data.
func (e *Env) SetMsgResponse(proto.Message) {}

func (e *Env) Balance(addr []byte, denom string) *big.Int { return e.c.Balance(addr, denom) }

func (e *Env) bech(b []byte) string {
	s, _ := address.Bech32(e.c.Prefix, b)
	return s
}

func coinsString(coins []sim.Coin) string {
	parts := make([]string, len(coins))
	for i, c := range coins {
		parts[i] = c.Amount.String() + c.Denom
	}
	return strings.Join(parts, ",")
}

func (e *Env) move(addr []byte, c sim.Coin, sign int) error {
	if sign >= 0 {
		e.c.balances.Credit(addr, c)
		return nil
	}
	if b := e.c.balances.Get(addr, c.Denom); !e.c.balances.Debit(addr, c) {
		return &sim.CodedError{Codespace: "sdk", Code: 5, Log: fmt.Sprintf("spendable balance %s%s is smaller than %s%s: insufficient funds", b, c.Denom, c.Amount, c.Denom)}
	}
	return nil
}

func attr(k, v string) sim.Attribute { return sim.Attribute{Key: k, Value: v, Index: true} }

// Send moves coins with the x/bank events.
func (e *Env) Send(from, to []byte, coins []sim.Coin) error {
	for _, c := range coins {
		if err := e.move(from, c, -1); err != nil {
			return err
		}
		_ = e.move(to, c, 1)
	}
	amt := coinsString(coins)
	e.Emit(sim.Event{Type: "coin_spent", Attributes: []sim.Attribute{attr("spender", e.bech(from)), attr("amount", amt)}})
	e.Emit(sim.Event{Type: "coin_received", Attributes: []sim.Attribute{attr("receiver", e.bech(to)), attr("amount", amt)}})
	e.Emit(sim.Event{Type: "transfer", Attributes: []sim.Attribute{attr("recipient", e.bech(to)), attr("sender", e.bech(from)), attr("amount", amt)}})
	e.Emit(sim.Event{Type: "message", Attributes: []sim.Attribute{attr("sender", e.bech(from))}})
	return nil
}

// Mint creates coins with the x/bank events.
func (e *Env) Mint(to []byte, coins []sim.Coin) error {
	for _, c := range coins {
		_ = e.move(to, c, 1)
	}
	amt := coinsString(coins)
	e.Emit(sim.Event{Type: "coin_received", Attributes: []sim.Attribute{attr("receiver", e.bech(to)), attr("amount", amt)}})
	e.Emit(sim.Event{Type: "coinbase", Attributes: []sim.Attribute{attr("minter", e.bech(to)), attr("amount", amt)}})
	return nil
}

// Burn destroys coins with the x/bank events.
func (e *Env) Burn(from []byte, coins []sim.Coin) error {
	for _, c := range coins {
		if err := e.move(from, c, -1); err != nil {
			return err
		}
	}
	amt := coinsString(coins)
	e.Emit(sim.Event{Type: "coin_spent", Attributes: []sim.Attribute{attr("spender", e.bech(from)), attr("amount", amt)}})
	e.Emit(sim.Event{Type: "burn", Attributes: []sim.Attribute{attr("burner", e.bech(from)), attr("amount", amt)}})
	return nil
}

// Store returns a module's KV.
func (e *Env) Store(module string) sim.KV { return &kv{c: e.c, module: module} }

type kv struct {
	c      *Chain
	module string
}

// m looks the module's map up on every call: a rolled-back tx replaces the chain's maps.
func (s *kv) m() simfake.KV {
	m, ok := s.c.kv[s.module]
	if !ok {
		m = simfake.KV{}
		s.c.kv[s.module] = m
	}
	return m
}

func (s *kv) Get(key string) ([]byte, bool) { return s.m().Get(key) }

// Set keeps an empty value non-nil, as this engine always has.
func (s *kv) Set(key string, value []byte)                        { s.m()[key] = append([]byte{}, value...) }
func (s *kv) Delete(key string)                                   { s.m().Delete(key) }
func (s *kv) Iterate(prefix string, fn func(string, []byte) bool) { s.m().Iterate(prefix, fn) }

// Query is a sim.Query over the chain's latest state.
type Query struct{ c *Chain }

// Query returns the latest-state view.
func (c *Chain) Query() sim.Query { return Query{c: c} }

func (q Query) ChainID() string       { return q.c.ID }
func (q Query) Height() int64         { return q.c.height }
func (q Query) AddressPrefix() string { return q.c.Prefix }
func (q Query) Store(module string) sim.KVReader {
	return &kv{c: q.c, module: module}
}
func (q Query) Balance(addr []byte, denom string) *big.Int { return q.c.Balance(addr, denom) }

// Mux returns a ServeMux with every module's routes over the latest state.
func (c *Chain) Mux() *http.ServeMux {
	mux := http.NewServeMux()
	at := func(*http.Request) (sim.Query, error) { return c.Query(), nil }
	for _, m := range c.Modules {
		m.Routes(mux, at)
	}
	return mux
}

// FindEvents returns the events of the given type in order.
func FindEvents(evs []sim.Event, typ string) []sim.Event {
	var out []sim.Event
	for _, e := range evs {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// Attr returns an attribute value ("" if absent).
func Attr(ev sim.Event, key string) string {
	for _, a := range ev.Attributes {
		if a.Key == key {
			return a.Value
		}
	}
	return ""
}

// Keys lists the attribute keys of an event in order, without the trailing msg_index.
func Keys(ev sim.Event) []string {
	var out []string
	for _, a := range ev.Attributes {
		if a.Key == "msg_index" {
			continue
		}
		out = append(out, a.Key)
	}
	return out
}

// Types lists event types in order.
func Types(evs []sim.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}
