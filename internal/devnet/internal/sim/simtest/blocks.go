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
)

// Block production: a Chain booted with modules runs their transactions with the baseapp
// event conventions (message event first, msg_index on every event, rollback on failure),
// renders bank events the way a plain Cosmos SDK chain does (PlainBank) and produces blocks.
// The bridge packages' tests run their chains on it.

// ExecResult is one transaction a booted chain executed.
type ExecResult struct {
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
	Txs    []ExecResult
}

type pendingTx struct {
	signer string
	msgs   []proto.Message
}

// blocks is the block-production state of a Chain.
type blocks struct {
	Modules []sim.Module
	Blocks  []Block
	// Accounts get the modules' traffic intents when TrafficOn is set.
	Accounts  []sim.Account
	TrafficOn bool
	Seed      uint64
	handlers  map[string]sim.Handler
	mempool   []pendingTx
	txCount   int
}

// Boot builds a chain at height 1 (genesis) running modules, with their genesis applied and
// PlainBank events. Like the engine it checks the extras the modules need.
func Boot(id, prefix string, start time.Time, modules ...sim.Module) (*Chain, error) {
	c := NewChain(id, prefix)
	c.Now, c.Flavor, c.Modules, c.handlers = start, PlainBank{}, modules, map[string]sim.Handler{}
	if err := sim.CheckNeeds(c, modules...); err != nil {
		return nil, err
	}
	for _, m := range modules {
		for url, h := range m.Handlers() {
			c.handlers[url] = h
		}
		if err := m.InitGenesis(c); err != nil {
			return nil, fmt.Errorf("%s genesis: %w", m.Name(), err)
		}
	}
	c.Events = nil
	c.Blocks = append(c.Blocks, Block{Height: 1, Time: start})
	return c, nil
}

// Fund credits coins without events (genesis balances).
func (f *Chain) Fund(addr []byte, denom string, amount int64) {
	f.Bal.Credit(addr, sim.Coin{Denom: denom, Amount: big.NewInt(amount)})
}

// Supply sums every balance of a denom.
func (f *Chain) Supply(denom string) *big.Int { return f.Bal.Supply(denom) }

// NewEnv starts a transaction for direct handler tests: no events yet, a zero tx hash. The
// chain itself is the Env.
func (f *Chain) NewEnv() *Chain {
	f.Events, f.Hash = nil, make([]byte, 32)
	return f
}

// Submit queues a tx for the next block.
func (f *Chain) Submit(signer string, msgs ...proto.Message) {
	f.mempool = append(f.mempool, pendingTx{signer: signer, msgs: msgs})
}

// ProduceBlock executes the mempool (and, with TrafficOn, the modules' traffic) in a new
// block; block time advances by step.
func (f *Chain) ProduceBlock(step time.Duration) Block {
	f.BlockHeight++
	f.Now = f.Now.Add(step)
	b := Block{Height: f.BlockHeight, Time: f.Now}
	pool := f.mempool
	f.mempool = nil
	if f.TrafficOn {
		for mi, m := range f.Modules {
			rng := rand.New(rand.NewPCG(f.Seed, uint64(f.BlockHeight)<<8|uint64(mi)))
			for _, in := range m.Traffic(rng, f.Query(), f.Accounts) {
				pool = append(pool, pendingTx{signer: f.Accounts[in.Signer].Bech32, msgs: in.Msgs})
			}
		}
	}
	for _, p := range pool {
		b.Txs = append(b.Txs, f.exec(p))
	}
	f.Blocks = append(f.Blocks, b)
	return b
}

// Exec runs one tx immediately at the current height and returns its result.
func (f *Chain) Exec(signer string, msgs ...proto.Message) ExecResult {
	return f.exec(pendingTx{signer: signer, msgs: msgs})
}

// Block returns the block at height h.
func (f *Chain) Block(h int64) (Block, bool) {
	for _, b := range f.Blocks {
		if b.Height == h {
			return b, true
		}
	}
	return Block{}, false
}

func (f *Chain) exec(p pendingTx) ExecResult {
	f.txCount++
	hash := sha256.Sum256([]byte(fmt.Sprintf("%s/%d/%d", f.ID, f.BlockHeight, f.txCount)))
	res := ExecResult{Height: f.BlockHeight, Hash: hash[:], Signer: p.signer, Msgs: p.msgs}
	stores, bal := f.Snapshot()
	f.Hash, f.Events = hash[:], nil
	for i, m := range p.msgs {
		url := "/" + string(proto.MessageName(m))
		h, ok := f.handlers[url]
		start := len(f.Events)
		f.Emit(sim.Event{Type: "message", Attributes: []sim.Attribute{
			{Key: "action", Value: url, Index: true}, {Key: "sender", Value: p.signer, Index: true}}})
		var err error
		if !ok {
			err = &sim.CodedError{Codespace: "sdk", Code: 12, Log: "unknown message type " + url}
		} else {
			err = h(f, m)
		}
		if err != nil {
			f.Restore(stores, bal)
			res.Code = 1
			res.Log = err.Error()
			var ce *sim.CodedError
			if errors.As(err, &ce) {
				res.Code = ce.Code
			}
			f.Events = nil
			return res
		}
		// baseapp adds module to its message event only if no event of the message has one
		hasModule := false
		for _, ev := range f.Events[start+1:] {
			for _, a := range ev.Attributes {
				if a.Key == "module" {
					hasModule = true
				}
			}
		}
		if !hasModule {
			parts := strings.Split(strings.TrimPrefix(url, "/"), ".")
			if len(parts) > 1 {
				f.Events[start].Attributes = append(f.Events[start].Attributes, sim.Attribute{Key: "module", Value: parts[1], Index: true})
			}
		}
		for j := start; j < len(f.Events); j++ {
			f.Events[j].Attributes = append(f.Events[j].Attributes, sim.Attribute{Key: "msg_index", Value: strconv.Itoa(i), Index: true})
		}
	}
	res.Events, f.Events = f.Events, nil
	return res
}

// liveQuery is a sim.Query over the chain's current state.
type liveQuery struct{ f *Chain }

// Query returns the current-state view.
func (f *Chain) Query() sim.Query { return liveQuery{f: f} }

func (q liveQuery) ChainID() string                            { return q.f.ID }
func (q liveQuery) Height() int64                              { return q.f.BlockHeight }
func (q liveQuery) AddressPrefix() string                      { return q.f.Prefix }
func (q liveQuery) Store(module string) sim.KVReader           { return q.f.Store(module) }
func (q liveQuery) Balance(addr []byte, denom string) *big.Int { return q.f.Balance(addr, denom) }

// Mux returns a ServeMux with every module's routes over the current state.
func (f *Chain) Mux() *http.ServeMux {
	mux := http.NewServeMux()
	at := func(*http.Request) (sim.Query, error) { return f.Query(), nil }
	for _, m := range f.Modules {
		m.Routes(mux, at)
	}
	return mux
}

// PlainBank renders bank movements as a plain Cosmos SDK chain's x/bank does (amounts in the
// order given).
type PlainBank struct{}

func attr(k, v string) sim.Attribute { return sim.Attribute{Key: k, Value: v, Index: true} }

func bech(prefix string, b []byte) string {
	s, _ := address.Bech32(prefix, b)
	return s
}

func coinsString(coins []sim.Coin) string {
	parts := make([]string, len(coins))
	for i, c := range coins {
		parts[i] = c.Amount.String() + c.Denom
	}
	return strings.Join(parts, ",")
}

// SendEvents implements sim.BankFlavor.
func (PlainBank) SendEvents(prefix string, from, to []byte, coins []sim.Coin) []sim.Event {
	amt, f, t := coinsString(coins), bech(prefix, from), bech(prefix, to)
	return []sim.Event{
		{Type: "coin_spent", Attributes: []sim.Attribute{attr("spender", f), attr("amount", amt)}},
		{Type: "coin_received", Attributes: []sim.Attribute{attr("receiver", t), attr("amount", amt)}},
		{Type: "transfer", Attributes: []sim.Attribute{attr("recipient", t), attr("sender", f), attr("amount", amt)}},
		{Type: "message", Attributes: []sim.Attribute{attr("sender", f)}},
	}
}

// MintEvents implements sim.BankFlavor.
func (PlainBank) MintEvents(prefix string, to []byte, coins []sim.Coin) []sim.Event {
	amt, t := coinsString(coins), bech(prefix, to)
	return []sim.Event{
		{Type: "coin_received", Attributes: []sim.Attribute{attr("receiver", t), attr("amount", amt)}},
		{Type: "coinbase", Attributes: []sim.Attribute{attr("minter", t), attr("amount", amt)}},
	}
}

// BurnEvents implements sim.BankFlavor.
func (PlainBank) BurnEvents(prefix string, from []byte, coins []sim.Coin) []sim.Event {
	amt, f := coinsString(coins), bech(prefix, from)
	return []sim.Event{
		{Type: "coin_spent", Attributes: []sim.Attribute{attr("spender", f), attr("amount", amt)}},
		{Type: "burn", Attributes: []sim.Attribute{attr("burner", f), attr("amount", amt)}},
	}
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
